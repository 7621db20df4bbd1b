import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore

/// The UI of a proxy bound to a non-loopback address: 401 without the token printed at start,
/// from every client address (loopback included), while the proxy's own traffic is untouched.
struct UITokenTests {
    @Test func aProxyOnAnyAddressAnswersTheUIOnlyWithItsTokenAndServesTrafficAsBefore() async throws {
        let workspace = try CLIWorkspace()
        try await workspace.record(Array(UIRecordings.interactions().prefix(3)))
        try await withInProcessProxy(["replay", "--port", "0", "--host", "0.0.0.0", "--db", workspace.storePath]) { proxy in
            let line = try #require(proxy.outputLines.first { $0.hasPrefix("ui on ") })
            let token = try #require(line.components(separatedBy: "?token=").last.flatMap { $0.isEmpty ? nil : $0 })
            #expect(token.count == 32)

            for path in [
                "/__cassette/ui/", "/__cassette/ui/app.js", "/__cassette/ui/api/cassettes", "/__cassette/ui/api/live", "/__cassette/ui/api/findings",
                "/__cassette/ui/api/sessions",
            ] {
                #expect(try await proxy.get(path).statusCode == 401, "\(path) without the token")
                #expect(try await proxy.get(path + "?token=wrong\(token.dropFirst(5))").statusCode == 401, "\(path) with a wrong token")
            }
            let page = try await proxy.get("/__cassette/ui/?token=\(token)")
            #expect(page.statusCode == 200)
            let cookie = try #require(page.headerFields[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let withCookie = try await proxy.get("/__cassette/ui/api/cassettes", headers: [.cookie: String(cookie.split(separator: ";")[0])])
            #expect(withCookie.statusCode == 200)
            #expect(String(decoding: withCookie.body, as: UTF8.self).contains(#""interactions":3"#))

            // The proxy's own API traffic needs no token.
            let replayed = try await proxy.get("/items/1")
            #expect(replayed.statusCode == 200)
            #expect(replayed.headerFields[HTTPField.Name("X-Cassette")!] == "hit")
        }
    }

    @Test func aLoopbackProxyNeedsNoTokenPrintsNothingNewAndSendsTheContentSecurityPolicy() async throws {
        let workspace = try CLIWorkspace()
        try await workspace.record(Array(UIRecordings.interactions().prefix(3)))
        try await withInProcessReplayer(store: workspace.storePath) { proxy in
            let page = try await proxy.get("/__cassette/ui/")
            #expect(page.statusCode == 200)
            #expect(!proxy.outputLines.contains { $0.hasPrefix("ui on") }, "the output scripts read on loopback is unchanged")
            let policy = try #require(page.headerFields[.contentSecurityPolicy])
            #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'") && !policy.contains("unsafe"))
            #expect(try await proxy.get("/__cassette/ui").statusCode == 302)
            #expect(try await proxy.get("/__cassette/ui/api/interactions?status=abc").statusCode == 400)
            #expect(try await proxy.get("/__cassette/ui/api/interaction?id=424242").statusCode == 404)
        }
    }
}
