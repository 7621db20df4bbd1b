import CassetteProxy
import Crypto
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `Proxy-Authorization` is addressed to the client's configured proxy. A reverse proxy was asked
/// for no credentials, so the field is the upstream's and goes on to it (redacted in the store and
/// the log as every credential is); a forward proxy (`--forward`) is its addressee and drops it.
@Suite("Proxy-Authorization")
final class ProxyCredentialsForwardingTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let credential = "Basic cHJveHl1c2VyOnMzY3IzdC1wcm94eQ=="
    static var credentialHash: String { Crypto.SHA256.hash(data: Data(credential.utf8)).map { String(format: "%02x", $0) }.joined() }

    struct Echo: Decodable {
        var names: [String]
        var proxyAuthorizationSHA256: String?
    }

    @Test func aReverseProxyForwardsProxyAuthorizationToTheUpstreamAndStoresItRedacted() async throws {
        try await PythonUpstream.with(in: workspace.directory.path) { upstream in
            try await withInProcessRecorder(upstream: upstream, store: store) { recorder async throws in
                let response = try await recorder.get("/api/headers", headers: [HTTPField.Name("Proxy-Authorization")!: Self.credential])
                #expect(response.statusCode == 200)
                let echo = try JSONDecoder().decode(Echo.self, from: response.body)
                #expect(echo.proxyAuthorizationSHA256 == Self.credentialHash, "the upstream got \(echo.names)")
                await recorder.stop()
                #expect(!recorder.standardOutput.contains("cHJveHl1c2Vy"))
                #expect(!recorder.standardError.contains("cHJveHl1c2Vy"))
            }
        }
        let stored = try await StoreFiles.interactions(at: store)
        #expect(stored.count == 1)
        #expect(stored.first?.requestHeaders[HTTPField.Name("Proxy-Authorization")!] == Redactor.placeholder)
        #expect(try StoreFiles.files(at: store, containing: "cHJveHl1c2Vy") == [])
    }

    @Test func aForwardProxyConsumesProxyAuthorization() async throws {
        try await PythonUpstream.with(in: workspace.directory.path) { upstream in
            let arguments = ["record", "--port", "0", "--db", store, "--forward", "--ca-dir", workspace.path("ca")]
            try await withInProcessProxy(arguments) { proxy async throws in
                let curl = try await ForwardProxyClients.curl(
                    upstream.absoluteString + "/api/headers", proxy: proxy.url, cacert: nil, headers: ["Proxy-Authorization: \(Self.credential)"],
                    in: workspace.directory)
                #expect(curl.status == 0, "\(curl)")
                let body = try #require(curl.stdout.range(of: "{").map { String(curl.stdout[$0.lowerBound...]) }, "\(curl)")
                let echo = try JSONDecoder().decode(Echo.self, from: Data(body.utf8))
                #expect(echo.proxyAuthorizationSHA256 == nil, "\(curl)")
                #expect(!echo.names.contains("proxy-authorization"))
                #expect(echo.names.contains("user-agent"), "the echo lists what arrived: \(echo.names)")
            }
        }
    }
}
