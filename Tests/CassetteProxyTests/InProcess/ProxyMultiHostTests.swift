import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// One `cassette record` in front of two real upstreams (an HTTPS API whose CA the test made, and
/// a plain HTTP auth host it redirects to), then the same cassette replayed with both stopped.
@Suite("Proxy with several upstreams")
final class ProxyMultiHostTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// The auth host (HTTP), then the API (HTTPS) whose `/login` redirects to it.
    private func withTwoHosts<R>(_ body: (_ api: URL, _ auth: URL, TestCertificates) async throws -> R) async throws -> R {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        let authRoutes: [String: RoutedUpstream.Route] = [
            "GET /v1/me": .init(json: #"{"host": "auth"}"#),
            "GET /auth/authorize": .init(json: #"{"signedIn": true}"#),
        ]
        return try await RoutedUpstream.with(authRoutes, name: "auth", in: workspace.directory.path) { auth in
            let apiRoutes: [String: RoutedUpstream.Route] = [
                "GET /v1/me": .init(json: #"{"host": "api"}"#),
                "GET /login": .init(status: 302, headers: [("Location", auth.absoluteString + "/auth/authorize?client=app")], json: "{}"),
            ]
            let tls = PythonUpstream.TLS(certificate: certificates.serverCertificate, key: certificates.serverKey)
            return try await RoutedUpstream.with(apiRoutes, tls: tls, name: "api", in: workspace.directory.path) { api in
                try await body(api, auth, certificates)
            }
        }
    }

    private func following(_ url: URL) async throws -> TransportResponse {
        try await ProxyClient.transport.send(TransportRequest(method: .get, url: url, followRedirects: true))
    }

    @Test func twoUpstreamsAreRecordedByOneProxyAndReplayedOfflineWithTheRedirectBetweenThem() async throws {
        var api: URL!
        var auth: URL!
        try await withTwoHosts { apiURL, authURL, certificates in
            api = apiURL
            auth = authURL
            let arguments = [
                "record", "--upstream", api.absoluteString, "--upstream", auth.absoluteString, "--port", "0", "--db", store,
                "--cacert", certificates.caCertificate,
            ]
            try await withInProcessProxy(arguments) { proxy in
                try #require(proxy.listeners.count == 2, "\(proxy.lines)")
                #expect(proxy.lines.count == 2)
                #expect(proxy.lines[0].hasPrefix("listening on http://127.0.0.1:"))
                #expect(proxy.lines[0].hasSuffix(" for \(api.absoluteString)"), "\(proxy.lines)")
                #expect(proxy.lines[1].hasSuffix(" for \(auth.absoluteString)"), "\(proxy.lines)")
                #expect(proxy.listeners[0].url.port != proxy.listeners[1].url.port)

                let fromAPI = try await proxy.get(0, "/v1/me")
                #expect(fromAPI.cassetteSource == "recorded")
                #expect(try fromAPI.jsonObject()["host"] as? String == "api")
                let fromAuth = try await proxy.get(1, "/v1/me")
                #expect(fromAuth.cassetteSource == "recorded")
                #expect(try fromAuth.jsonObject()["host"] as? String == "auth")

                // The API's redirect to the auth host points at the auth host's listener.
                let redirect = try await proxy.get(0, "/login")
                #expect(redirect.statusCode == 302)
                #expect(redirect.headerFields[.location] == proxy.url(1, "/auth/authorize?client=app").absoluteString)
                let signedIn = try await following(proxy.url(0, "/login"))
                #expect(signedIn.cassetteSource == "recorded")
                #expect(try signedIn.jsonObject()["signedIn"] as? Bool == true)

                await proxy.stop()
                #expect(proxy.summaryLine?.hasPrefix("recorded 5, replayed 0,") == true, "\(proxy.outputLines)")
                // Log lines name the host: the same path on two hosts is two requests.
                #expect(proxy.outputLines.contains { $0.hasPrefix("GET https://127.0.0.1:\(api.port!)/v1/me 200") }, "\(proxy.outputLines)")
                #expect(proxy.outputLines.contains { $0.hasPrefix("GET http://127.0.0.1:\(auth.port!)/v1/me 200") }, "\(proxy.outputLines)")
            }
        }
        let keys = Set(try await StoreFiles.interactions(at: store).map(\.key))
        #expect(
            keys == [
                "GET https://127.0.0.1:\(api.port!)/v1/me", "GET http://127.0.0.1:\(auth.port!)/v1/me",
                "GET https://127.0.0.1:\(api.port!)/login", "GET http://127.0.0.1:\(auth.port!)/auth/authorize?client=app",
            ])

        // Both upstreams are gone: the replay lays out one listener per recorded host, in the
        // order each was first recorded, and contacts nothing.
        try await withInProcessProxy(["replay", "--port", "0", "--db", store]) { proxy in
            try #require(proxy.listeners.count == 2, "\(proxy.lines)")
            #expect(proxy.listeners[0].upstream == api.absoluteString)
            #expect(proxy.listeners[1].upstream == auth.absoluteString)
            let fromAPI = try await proxy.get(0, "/v1/me")
            #expect(fromAPI.cassetteSource == "hit")
            #expect(try fromAPI.jsonObject()["host"] as? String == "api")
            #expect(try await proxy.get(1, "/v1/me").jsonObject()["host"] as? String == "auth")
            let signedIn = try await following(proxy.url(0, "/login"))
            #expect(signedIn.cassetteSource == "hit")
            #expect(try signedIn.jsonObject()["signedIn"] as? Bool == true)
            // A path recorded on one host only is a miss on the other.
            let miss = try await proxy.get(1, "/login")
            #expect(miss.statusCode == 404)
            #expect(try miss.jsonObject()["key"] as? String == "GET http://127.0.0.1:\(auth.port!)/login")
            await proxy.stop()
            #expect(proxy.summaryLine?.hasPrefix("recorded 0, replayed 4, missed 1") == true, "\(proxy.outputLines)")
        }
    }

    @Test func anEnvironmentsUpstreamsEachWithItsOwnTLSAreListenedForInTheFilesOrder() async throws {
        try await withTwoHosts { api, auth, _ in
            // Only the API entry trusts the test CA: TLS settings are per upstream.
            try workspace.write(
                """
                {"environments": {"app": {"upstreams": {
                  "auth": {"upstream": "\(auth.absoluteString)"},
                  "api": {"upstream": "\(api.absoluteString)", "tls": {"cacert": "ca.pem"}}
                }}}}
                """, to: "cassette.json")
            let config = workspace.path("cassette.json")
            try await withInProcessProxy(["record", "--config", config, "--env", "app", "--port", "0", "--db", store]) { proxy in
                try #require(proxy.listeners.count == 2, "\(proxy.lines)")
                #expect(proxy.listeners.map(\.upstream) == [auth.absoluteString, api.absoluteString])
                let fromAPI = try await proxy.get(1, "/v1/me").jsonObject()
                let fromAuth = try await proxy.get(0, "/v1/me").jsonObject()
                #expect(fromAPI["host"] as? String == "api")
                #expect(fromAuth["host"] as? String == "auth")
            }
        }
        // The environment names the listeners of the replay too, in the file's order.
        let config = workspace.path("cassette.json")
        try await withInProcessProxy(["replay", "--config", config, "--env", "app", "--port", "0", "--db", store]) { proxy in
            try #require(proxy.listeners.count == 2, "\(proxy.lines)")
            let fromAuth = try await proxy.get(0, "/v1/me").jsonObject()
            let fromAPI = try await proxy.get(1, "/v1/me")
            #expect(fromAuth["host"] as? String == "auth")
            #expect(fromAPI.cassetteSource == "hit")
        }
    }

}
