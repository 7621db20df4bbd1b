import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Sessions of a proxy in front of two real upstreams (an API and the auth host it redirects to),
/// and `--sessions-only`, with which a suite's proxy needs no cassette of its own.
@Suite("Proxy sessions with several upstreams")
final class ProxyMultiHostSessionTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }
    let cassette = "LoginTests/signsIn()"

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func withTwoHosts<R>(_ body: (_ api: URL, _ auth: URL) async throws -> R) async throws -> R {
        let authRoutes: [String: RoutedUpstream.Route] = [
            "GET /v1/me": .init(json: #"{"host": "auth"}"#),
            "GET /auth/authorize": .init(json: #"{"signedIn": true}"#),
        ]
        return try await RoutedUpstream.with(authRoutes, name: "auth", in: workspace.directory.path) { auth in
            let apiRoutes: [String: RoutedUpstream.Route] = [
                "GET /v1/me": .init(json: #"{"host": "api"}"#),
                "GET /login": .init(status: 302, headers: [("Location", auth.absoluteString + "/auth/authorize?client=app")], json: "{}"),
            ]
            return try await RoutedUpstream.with(apiRoutes, name: "api", in: workspace.directory.path) { api in
                try await body(api, auth)
            }
        }
    }

    /// The session's listeners as `POST /__cassette/sessions` answered them.
    private struct Opened {
        let id: String
        let baseURL: URL
        let listeners: [(upstream: String?, baseURL: URL)]

        func url(_ index: Int, _ pathAndQuery: String) -> URL {
            URL(string: listeners[index].baseURL.absoluteString + pathAndQuery)!
        }
    }

    private func open(at main: URL, mode: String? = nil) async throws -> Opened {
        let body = mode.map { #"{"cassette": "\#(cassette)", "mode": "\#($0)"}"# } ?? #"{"cassette": "\#(cassette)"}"#
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let response = try await ProxyClient.send(.post, main.appending(path: "__cassette/sessions"), headers: headers, body: Data(body.utf8))
        #expect(response.statusCode == 201, "\(response.bodyText)")
        let created = try response.jsonObject()
        let listeners = try #require(created["listeners"] as? [[String: Any]], "\(response.bodyText)")
        let id = try #require(created["id"] as? String)
        let base = try #require((created["baseURL"] as? String).flatMap(URL.init(string:)))
        let parsed = listeners.compactMap { listener -> (upstream: String?, baseURL: URL)? in
            guard let url = (listener["baseURL"] as? String).flatMap(URL.init(string:)) else { return nil }
            return (upstream: listener["upstream"] as? String, baseURL: url)
        }
        #expect(parsed.count == listeners.count, "\(response.bodyText)")
        return Opened(id: id, baseURL: base, listeners: parsed)
    }

    private func following(_ url: URL) async throws -> TransportResponse {
        try await ProxyClient.transport.send(TransportRequest(method: .get, url: url, followRedirects: true))
    }

    private func withSession(_ id: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Cassette-Session")!] = id
        return headers
    }

    @Test func aSessionHasAListenerPerUpstreamAndReplaysOfflineFromASessionsOnlyProxy() async throws {
        var api: URL!
        var auth: URL!
        try await withTwoHosts { apiURL, authURL in
            api = apiURL
            auth = authURL
            let arguments = ["record", "--upstream", api.absoluteString, "--upstream", auth.absoluteString, "--port", "0", "--db", store, "--sessions-only"]
            try await withInProcessProxy(arguments) { proxy in
                try #require(proxy.listeners.count == 2, "\(proxy.lines)")
                let session = try await open(at: proxy.listeners[0].url, mode: "once")
                #expect(session.listeners.map(\.upstream) == [api.absoluteString, auth.absoluteString])
                #expect(session.baseURL == session.listeners[0].baseURL)
                let ports = Set(session.listeners.map(\.baseURL.port) + proxy.listeners.map(\.url.port))
                #expect(ports.count == 4, "each listener of the session has a port of its own")

                let fromAPI = try await ProxyClient.send(.get, session.url(0, "/v1/me"))
                #expect(fromAPI.cassetteSource == "recorded")
                #expect(try fromAPI.jsonObject()["host"] as? String == "api")
                let fromAuth = try await ProxyClient.send(.get, session.url(1, "/v1/me"))
                #expect(fromAuth.cassetteSource == "recorded")
                #expect(try fromAuth.jsonObject()["host"] as? String == "auth")
                // The API's redirect to the auth host leads to the session's auth listener.
                let redirect = try await ProxyClient.send(.get, session.url(0, "/login"))
                #expect(redirect.headerFields[.location] == session.url(1, "/auth/authorize?client=app").absoluteString)
                #expect(try await following(session.url(0, "/login")).jsonObject()["signedIn"] as? Bool == true)

                // Through the main ports with the header: each main listener routes to the
                // session's listener for the same host.
                let headed = try await proxy.get(1, "/v1/me", headers: withSession(session.id))
                #expect(headed.cassetteSource == "hit")
                #expect(try headed.jsonObject()["host"] as? String == "auth")
                #expect(try await proxy.get(0, "/v1/me", headers: withSession(session.id)).jsonObject()["host"] as? String == "api")

                // --sessions-only: the main port serves nobody without a session.
                let bare = try await proxy.get(0, "/v1/me")
                #expect(bare.statusCode == 400)
                #expect(try bare.jsonObject()["error"] as? String == "session_required")
                #expect((try bare.jsonObject()["message"] as? String)?.contains("X-Cassette-Session") == true)

                // A session's own port manages no sessions, and says where they are.
                let nested = try await ProxyClient.send(.get, session.url(1, "/__cassette/sessions"))
                #expect(nested.statusCode == 404)
                #expect(try nested.jsonObject()["error"] as? String == "no_sessions_here")

                let journal = try await ProxyClient.send(.get, proxy.url(0, "/__cassette/sessions/\(session.id)/requests")).jsonObject()
                let keys = (journal["requests"] as? [[String: Any]] ?? []).compactMap { $0["key"] as? String }
                #expect(keys.contains("GET http://127.0.0.1:\(auth.port!)/v1/me"), "\(keys)")
                #expect(keys.contains("GET http://127.0.0.1:\(api.port!)/v1/me"), "\(keys)")
                // ?host= narrows the journal to one upstream; each entry names its origin.
                let authOnly = try await ProxyClient.send(.get, proxy.url(0, "/__cassette/sessions/\(session.id)/requests?host=127.0.0.1:\(auth.port!)"))
                    .jsonObject()
                let authEntries = authOnly["requests"] as? [[String: Any]] ?? []
                #expect(authEntries.count == 3, "\(authOnly)")
                #expect(authEntries.allSatisfy { $0["origin"] as? String == auth.absoluteString }, "\(authOnly)")
                let ended = try await ProxyClient.send(.delete, proxy.url(0, "/__cassette/sessions/\(session.id)?strict=true"))
                #expect(ended.statusCode == 200, "\(ended.bodyText)")

                await proxy.stop()
                #expect(proxy.summaryLine?.hasPrefix("recorded 0, replayed 0, missed 1") == true, "\(proxy.outputLines)")
            }
        }
        let recorded = try await StoreFiles.interactions(at: store)
        #expect(Set(recorded.map(\.cassette)) == [cassette], "only the session's cassette is written")
        #expect(
            Set(recorded.map(\.key)) == [
                "GET http://127.0.0.1:\(api.port!)/v1/me", "GET http://127.0.0.1:\(auth.port!)/v1/me",
                "GET http://127.0.0.1:\(api.port!)/login", "GET http://127.0.0.1:\(auth.port!)/auth/authorize?client=app",
            ])

        // Both hosts stopped, no upstream given and no cassette of the proxy's own: the session
        // lays out the hosts its cassette was recorded from.
        try await withInProcessReplayer(store: store, arguments: ["--sessions-only"]) { proxy async throws in
            let session = try await open(at: proxy.url)
            #expect(session.listeners.map(\.upstream) == [api.absoluteString, auth.absoluteString])
            #expect(try await ProxyClient.send(.get, session.url(1, "/v1/me")).jsonObject()["host"] as? String == "auth")
            let signedIn = try await following(session.url(0, "/login"))
            #expect(signedIn.cassetteSource == "hit")
            #expect(try signedIn.jsonObject()["signedIn"] as? Bool == true)
            #expect(try await proxy.get("/v1/me", headers: withSession(session.id)).jsonObject()["host"] as? String == "api")
            let ended = try await proxy.send(.delete, "/__cassette/sessions/\(session.id)?strict=true")
            #expect(ended.statusCode == 200, "\(ended.bodyText)")
            #expect(try ended.jsonObject()["served"] as? Int == 4)
        }
    }

}
