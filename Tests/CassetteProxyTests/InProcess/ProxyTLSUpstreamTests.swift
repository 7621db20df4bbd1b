import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette record` (in this process) in front of an HTTPS upstream whose certificates the test
/// made with openssl: a private CA, mutual TLS, a wrong CA, --insecure, and cassette.json's "tls".
@Suite("Proxy with an HTTPS upstream")
final class ProxyTLSUpstreamTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func withHTTPS<R>(requireClientCertificate: Bool = false, _ body: (URL, TestCertificates) async throws -> R) async throws -> R {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        let tls = PythonUpstream.TLS(
            certificate: certificates.serverCertificate, key: certificates.serverKey,
            requiredClientCA: requireClientCertificate ? certificates.caCertificate : nil)
        return try await PythonUpstream.with(tls: tls, in: workspace.directory.path) { base in
            try await body(base, certificates)
        }
    }

    @Test func aPrivateCAGivenWithCacertIsRecordedAndReplaysOffline() async throws {
        try await withHTTPS { base, certificates in
            try await withInProcessRecorder(upstream: base, store: store, arguments: ["--cacert", certificates.caCertificate]) { recorder in
                let response = try await recorder.get("/api/hello")
                #expect(response.statusCode == 200)
                #expect(response.cassetteSource == "recorded")
                #expect(try response.jsonObject()["hello"] as? String == "world")
                await recorder.stop()
            }
        }
        try await withInProcessReplayer(store: store) { replayer in
            let response = try await replayer.get("/api/hello")
            #expect(response.cassetteSource == "hit")
            #expect(try response.jsonObject()["hello"] as? String == "world")
        }
    }

    @Test func theWrongCAGets502NamingCacertAndRecordsNothing() async throws {
        try await withHTTPS { base, certificates in
            try await withInProcessRecorder(upstream: base, store: store, arguments: ["--cacert", certificates.otherCACertificate]) { recorder in
                let response = try await recorder.get("/api/hello")
                #expect(response.statusCode == 502)
                #expect(try response.jsonObject()["error"] as? String == "upstream_tls_failed")
                let message = try #require(try response.jsonObject()["message"] as? String)
                #expect(message.contains("--cacert FILE"), "\(message)")
                #expect(message.localizedCaseInsensitiveContains("certificate"), "\(message)")
                // One sentence naming the upstream once: the request's URL (before, the origin
                // came first too: "https://… failed: GET https://…/api/hello: …").
                #expect(message.hasPrefix("GET \(base.absoluteString)"), "\(message)")
                #expect(message.components(separatedBy: "\(base.host ?? ""):\(base.port ?? 0)").count == 2, "\(message)")
                await recorder.stop()
                #expect(recorder.summaryLine?.hasPrefix("recorded 0,") == true)
            }
        }
        #expect(try await StoreFiles.interactions(at: store).isEmpty)
    }

    @Test func mutualTLSNeedsCertAndKeyAndSaysSo() async throws {
        try await withHTTPS(requireClientCertificate: true) { base, certificates in
            try await withInProcessRecorder(upstream: base, store: store, arguments: ["--cacert", certificates.caCertificate]) { recorder in
                let response = try await recorder.get("/api/hello")
                #expect(response.statusCode == 502)
                let message = try #require(try response.jsonObject()["message"] as? String)
                #expect(message.contains("--cert FILE"), "\(message)")
            }
            try await withInProcessRecorder(
                upstream: base, store: store,
                arguments: ["--cacert", certificates.caCertificate, "--cert", certificates.clientCertificate, "--key", certificates.clientKey]
            ) { recorder in
                let response = try await recorder.get("/api/hello")
                #expect(response.statusCode == 200)
                #expect(try response.jsonObject()["client"] as? String == "cassette-test-client")
            }
        }
        #expect(try await StoreFiles.interactions(at: store).count == 1)
    }

    @Test func insecureIsWarnedAboutAtStartInHealthAndInTheSummary() async throws {
        try await withHTTPS { base, _ in
            try await withInProcessRecorder(upstream: base, store: store, arguments: ["--insecure"]) { recorder in
                #expect(try await recorder.get("/api/hello").statusCode == 200)
                let health = try await recorder.get("/__cassette/health").jsonObject()
                #expect((health["warning"] as? String)?.contains("--insecure") == true)
                await recorder.stop()
                #expect(recorder.standardError.contains("warning: --insecure"))
                #expect(recorder.outputLines.contains { $0.hasPrefix("warning: --insecure") })
            }
            try await withInProcessRecorder(upstream: base, store: workspace.path("d.db"), arguments: ["--cacert", workspace.path("ca.pem")]) { recorder in
                let health = try await recorder.get("/__cassette/health").jsonObject()
                #expect(health["warning"] == nil)
            }
        }
    }

    @Test func anEnvironmentsTLSInCassetteJSONIsUsedWithPathsRelativeToTheFile() async throws {
        try await withHTTPS(requireClientCertificate: true) { base, _ in
            try workspace.write(
                """
                {"environments": {"staging": {"upstream": "\(base.absoluteString)",
                  "tls": {"cacert": "ca.pem", "cert": "client.pem", "key": "client.key"}}}}
                """, to: "project/cassette.json")
            for file in ["ca.pem", "client.pem", "client.key"] {
                try FileManager.default.copyItem(atPath: workspace.path(file), toPath: workspace.path("project/\(file)"))
            }
            try await withInProcessProxy(["record", "--config", workspace.path("project/cassette.json"), "--env", "staging", "--port", "0", "--db", store]) {
                recorder in
                let response = try await recorder.get("/api/hello")
                #expect(response.statusCode == 200)
                #expect(try response.jsonObject()["client"] as? String == "cassette-test-client")
            }
        }
    }

}
