import CassetteForward
import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Sessions of a forward proxy: each is a forward proxy of its own for its cassette, which an app
/// that cannot change its URLs uses as HTTPS_PROXY (curl here, with an HTTPS upstream whose
/// certificates the test made, recorded, then replayed with the upstream stopped).
@Suite("Proxy sessions on a forward proxy")
final class ForwardProxySessionTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }
    var caDirectory: String { workspace.path("ca") }
    var cassetteCA: String { CertificateAuthority.certificatePath(in: caDirectory) }
    let cassette = "CheckoutTests/pays()"

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func open(_ proxy: InProcessProxy, mode: String) async throws -> (id: String, baseURL: URL) {
        let response = try await proxy.postSession(#"{"cassette": "\#(cassette)", "mode": "\#(mode)"}"#)
        #expect(response.statusCode == 201, "\(response.bodyText)")
        let created = try response.jsonObject()
        let id = try #require(created["id"] as? String, "\(response.bodyText)")
        let base = try #require((created["baseURL"] as? String).flatMap(URL.init(string:)), "\(response.bodyText)")
        return (id, base)
    }

    private func curl(_ url: String, via proxy: URL) async throws -> CommandResult {
        try await ForwardProxyClients.curl(url, proxy: proxy, cacert: cassetteCA, in: workspace.directory)
    }

    @Test func aSessionIsAForwardProxyOfItsOwnForItsCassette() async throws {
        #expect(try await workspace.run("ca", "init", "--dir", caDirectory).status == 0)
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        let tls = PythonUpstream.TLS(certificate: certificates.localhostCertificate, key: certificates.localhostKey)
        let routes: [String: RoutedUpstream.Route] = ["GET /v1/cart": .init(json: #"{"items": 2}"#), "GET /v1/me": .init(json: #"{"me": 1}"#)]
        var api: URL!
        try await RoutedUpstream.with(routes, tls: tls, name: "api", in: workspace.directory.path) { upstream in
            api = URL(string: "https://localhost:\(upstream.port!)")!
            let arguments = ["record", "--port", "0", "--db", store, "--forward", "--ca-dir", caDirectory, "--cacert", certificates.caCertificate]
            try await withInProcessProxy(arguments) { proxy in
                // The proxy's own cassette gets one recording, so the replay below can start.
                #expect(try await curl(api.absoluteString + "/v1/me", via: proxy.url).stdout.lowercased().contains("x-cassette: recorded"))
                let session = try await open(proxy, mode: "once")
                #expect(session.baseURL.port != proxy.url.port)
                let recorded = try await curl(api.absoluteString + "/v1/cart", via: session.baseURL)
                #expect(recorded.status == 0, "\(recorded)")
                #expect(recorded.stdout.lowercased().contains("x-cassette: recorded") && recorded.stdout.contains(#""items": 2"#), "\(recorded)")
                let again = try await curl(api.absoluteString + "/v1/cart", via: session.baseURL)
                #expect(again.stdout.lowercased().contains("x-cassette: hit"), "\(again)")

                // An app that must use the main proxy (the system's) adds the header instead: its
                // requests inside the tunnel go to the session, and the header goes nowhere else.
                let headed = try await ForwardProxyClients.curl(
                    api.absoluteString + "/v1/me", proxy: proxy.url, cacert: cassetteCA, headers: ["X-Cassette-Session: \(session.id)"],
                    in: workspace.directory)
                #expect(headed.stdout.lowercased().contains("x-cassette: recorded") && headed.stdout.contains(#""me": 1"#), "\(headed)")

                let journal = try await proxy.get("/__cassette/sessions/\(session.id)/requests").jsonObject()
                let entries = journal["requests"] as? [[String: Any]] ?? []
                #expect(
                    entries.map { $0["key"] as? String } == [
                        "GET \(api.absoluteString)/v1/cart", "GET \(api.absoluteString)/v1/cart", "GET \(api.absoluteString)/v1/me",
                    ], "\(journal)")
                #expect(entries.map { $0["source"] as? String } == ["recorded", "hit", "recorded"], "\(journal)")
                // The session's own port manages no sessions.
                let nested = try await ProxyClient.send(.get, session.baseURL.appending(path: "__cassette/sessions"))
                #expect(nested.statusCode == 404)
                #expect(try nested.jsonObject()["error"] as? String == "no_sessions_here", "\(nested.bodyText)")
                #expect(try await proxy.send(.delete, "/__cassette/sessions/\(session.id)?strict=true").statusCode == 200)
                await proxy.stop()
                #expect(
                    proxy.outputLines.contains { $0.hasPrefix("GET \(api.absoluteString)/v1/cart 200") && $0.hasSuffix("session \(session.id)") },
                    "\(proxy.outputLines)")
            }
        }
        let inSession = try await StoreFiles.interactions(at: store, cassette: cassette)
        #expect(Set(inSession.map(\.key)) == ["GET \(api.absoluteString)/v1/cart", "GET \(api.absoluteString)/v1/me"])
        #expect(inSession.allSatisfy { !$0.requestHeaders.contains { $0.name.rawName.lowercased() == "x-cassette-session" } })
        #expect(try await StoreFiles.interactions(at: store, cassette: "dev").map(\.key) == ["GET \(api.absoluteString)/v1/me"])

        // The upstream is stopped: a replaying forward proxy's session serves the cassette and
        // refuses a host the cassette never recorded.
        try await withInProcessReplayer(store: store, arguments: ["--forward", "--ca-dir", caDirectory]) { proxy in
            let session = try await open(proxy, mode: "none")
            let hit = try await curl(api.absoluteString + "/v1/cart", via: session.baseURL)
            #expect(hit.stdout.lowercased().contains("x-cassette: hit") && hit.stdout.contains(#""items": 2"#), "\(hit)")
            let notInSession = try await curl(api.absoluteString + "/v1/nothing", via: session.baseURL)
            #expect(notInSession.stdout.lowercased().contains("x-cassette: miss"), "\(notInSession)")
            let headed = try await ForwardProxyClients.curl(
                api.absoluteString + "/v1/me", proxy: proxy.url, cacert: cassetteCA, headers: ["X-Cassette-Session: \(session.id)"], in: workspace.directory)
            #expect(headed.stdout.lowercased().contains("x-cassette: hit"), "\(headed)")
            let replayed = try await proxy.get("/__cassette/sessions/\(session.id)/requests").jsonObject()["requests"] as? [[String: Any]] ?? []
            #expect(replayed.last?["key"] as? String == "GET \(api.absoluteString)/v1/me", "\(replayed)")
            let unknown = try await curl("https://never.invalid/", via: session.baseURL)
            #expect(unknown.status != 0, "\(unknown)")
            let ended = try await proxy.send(.delete, "/__cassette/sessions/\(session.id)?strict=true")
            #expect(ended.statusCode == 409, "\(ended.bodyText)")
        }
    }
}
