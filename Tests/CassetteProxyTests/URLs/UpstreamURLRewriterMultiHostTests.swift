import Foundation
import HTTPTypes
import Testing
import WellPlateCore

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket

/// A multi-host proxy serves each upstream's URLs pointing at that upstream's own listener, on
/// the host the client used, so a redirect from one host to another stays inside the proxy.
@Suite("URL rewriting over several upstreams")
struct UpstreamURLRewriterMultiHostTests {
    let upstreams = [URL(string: "https://api.example.com/v2")!, URL(string: "http://auth.example.com:8081")!]

    func rewriter(own: Int, ports: [Int]?, bodies: Bool = false) -> UpstreamURLRewriter {
        let listenerPorts = ListenerPorts()
        if let ports { listenerPorts.set(ports) }
        return UpstreamURLRewriter(upstreams: upstreams, own: own, ports: listenerPorts, rewritesBodies: bodies)!
    }

    @Test func aURLOfAnotherUpstreamPointsAtItsListenerOnTheHostTheClientUsed() {
        let api = rewriter(own: 0, ports: [7000, 7001])
        #expect(api.rewritten("http://auth.example.com:8081/authorize?x=1", proxyBase: "http://localhost:7000") == "http://localhost:7001/authorize?x=1")
        #expect(api.rewritten("https://API.example.com:443/v2/users", proxyBase: "http://localhost:7000") == "http://localhost:7000/users")
        let auth = rewriter(own: 1, ports: [7000, 7001])
        #expect(auth.rewritten("https://api.example.com/v2/me", proxyBase: "http://[::1]:7001") == "http://[::1]:7000/me")
        // The API's path prefix is part of what leads to it.
        #expect(auth.rewritten("https://api.example.com/v1/me", proxyBase: "http://127.0.0.1:7001") == nil)
        #expect(auth.rewritten("https://other.example.com/", proxyBase: "http://127.0.0.1:7001") == nil)
        // Root-relative URLs belong to the upstream that sent them.
        #expect(api.rewritten("/v2/page/2", proxyBase: "http://127.0.0.1:7000") == "/page/2")
        #expect(auth.rewritten("/v2/page/2", proxyBase: "http://127.0.0.1:7001") == nil)
    }

    @Test func beforeThePortsAreKnownOnlyTheListenersOwnURLsAreRewritten() {
        let api = rewriter(own: 0, ports: nil)
        #expect(api.rewritten("http://auth.example.com:8081/authorize", proxyBase: "http://127.0.0.1:7000") == nil)
        #expect(api.rewritten("https://api.example.com/v2/a", proxyBase: "http://127.0.0.1:7000") == "http://127.0.0.1:7000/a")
        // Asked whether anything leads back at all, every upstream counts.
        #expect(api.pointingAllAtOneBase.rewritten("http://auth.example.com:8081/authorize", proxyBase: "http://p.invalid") == "http://p.invalid/authorize")
    }

    @Test func headersAndJSONBodiesNameEachUpstreamsListener() throws {
        let api = rewriter(own: 0, ports: [7000, 7001], bodies: true)
        let fields: HTTPFields = [.location: "http://auth.example.com:8081/login", HTTPField.Name("Link")!: "<https://api.example.com/v2/p2>; rel=next"]
        let rewritten = try #require(api.rewritten(fields, proxyBase: "http://127.0.0.1:7000"))
        #expect(rewritten[.location] == "http://127.0.0.1:7001/login")
        #expect(rewritten[HTTPField.Name("Link")!] == "<http://127.0.0.1:7000/p2>; rel=next")
        let body = #"{"auth":"http:\/\/auth.example.com:8081\/token","next":"https://api.example.com/v2/p2","other":"https://x.example/"}"#
        let served = try #require(api.rewrittenBody(Array(body.utf8), fields: [.contentType: "application/json"], proxyBase: "http://127.0.0.1:7000"))
        #expect(
            String(decoding: served, as: UTF8.self)
                == #"{"auth":"http:\/\/127.0.0.1:7001\/token","next":"http://127.0.0.1:7000/p2","other":"https://x.example/"}"#)
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080", "127.0.0.1"), ("http://localhost", "localhost"), ("http://[::1]:9", "[::1]"), ("http://[fe80::1]", "[fe80::1]"),
    ])
    func theHostOfAProxyBaseKeepsIPv6Brackets(base: String, host: String) {
        #expect(ListenerPorts.host(of: base) == host[...])
    }
}
