import Foundation
import TestSupport
import Testing
import WellPlateCore

/// gRPC to an `https://` upstream: grpcio's server with TLS credentials (certificates the test
/// makes with openssl), reached over h2 with ALPN by swift-nio-http2's client and trusted through
/// `--cacert` as libcurl's upstreams are; recorded, its reflection read over TLS, replayed offline.
@Suite("gRPC calls recorded from a TLS upstream")
final class ProxyGRPCTLSUpstreamTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("grpc-tls.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    private let scenario = "get,missing,list,count,chat"

    @Test("the four kinds of call go to the TLS upstream with --cacert and replay offline")
    func recordFromTLSUpstreamThenReplay() async throws {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        let tls = (certificate: certificates.serverCertificate, key: certificates.serverKey)
        let recorded = try await GRPCPeers.withServer(reflection: true, tls: tls) { upstream in
            #expect(upstream.scheme == "https")
            return try await withInProcessProxy(
                ["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store, "--cacert", certificates.caCertificate]
            ) { proxy in
                let calls = try await GRPCPeers.runClient(scenario, against: proxy.url(""))
                _ = await proxy.stop()
                return calls
            }
        }
        #expect(recorded.map(\.code) == ["OK", "NOT_FOUND", "OK", "OK", "OK"], "\(recorded.map(\.line.compactJSON))")
        #expect(recorded.first?.line["body"]?["servedBy"] == .string("grpcio-peer"))

        // The reflection was read over TLS too: the calls decode with no protoset.
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let files = try await opened.protoFiles()
        try await opened.close()
        #expect(files.map(\.name) == ["google/protobuf/timestamp.proto", "shop.proto"])
        #expect(files.allSatisfy { $0.source.hasPrefix("reflection https://127.0.0.1:") }, "\(files.map(\.source))")

        let replayed = try await withInProcessReplayer(store: store) { replayer in
            try await GRPCPeers.runClient(scenario, against: replayer.url(""))
        }
        #expect(replayed.map(\.line) == recorded.map(\.line))
    }

    @Test("without --cacert the upstream's certificate is refused and the call is UNAVAILABLE")
    func untrustedUpstreamIsRefused() async throws {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        let tls = (certificate: certificates.serverCertificate, key: certificates.serverKey)
        let calls = try await GRPCPeers.withServer(tls: tls) { upstream in
            try await withInProcessProxy(["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store]) { proxy in
                try await GRPCPeers.runClient("get", against: proxy.url(""))
            }
        }
        #expect(calls.map(\.code) == ["UNAVAILABLE"], "\(calls.map(\.line.compactJSON))")
        let details = calls.first?.line["details"]?.stringValue ?? ""
        #expect(details.contains("the TLS handshake with the upstream https://127.0.0.1:"), "\(details)")
        #expect(details.contains("failed (CERTIFICATE_VERIFY_FAILED): trust its CA with --cacert FILE"), "\(details)")
        // One sentence naming the upstream once (before, "the upstream … could not be reached: the TLS handshake with … failed").
        #expect(details.components(separatedBy: "https://127.0.0.1:").count == 2, "\(details)")
    }

    @Test("a trusted certificate for another host is refused with what to do, not swift-nio-ssl's words")
    func certificateForAnotherHostIsRefused() async throws {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        // Signed by the trusted CA, but for `localhost` only, while the upstream is given by address.
        let tls = (certificate: certificates.nameOnlyCertificate, key: certificates.nameOnlyKey)
        let calls = try await GRPCPeers.withServer(tls: tls) { upstream in
            try await withInProcessProxy(
                ["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store, "--cacert", certificates.caCertificate]
            ) { proxy in
                try await GRPCPeers.runClient("get", against: proxy.url(""))
            }
        }
        #expect(calls.map(\.code) == ["UNAVAILABLE"], "\(calls.map(\.line.compactJSON))")
        let details = calls.first?.line["details"]?.stringValue ?? ""
        #expect(details.contains("the certificate of the upstream https://127.0.0.1:"), "\(details)")
        #expect(details.contains("is not for its host"), "\(details)")
        #expect(details.components(separatedBy: "https://127.0.0.1:").count == 2, "\(details)")
        #expect(!details.contains("Couldn't find"), "\(details)")
    }
}
