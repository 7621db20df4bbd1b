import NIOHTTP1
import Testing

@testable import CassetteProxy

/// Routing as a pure function of a request head and what its connection serves: no socket.
@Suite("Proxy routing")
struct ProxyRouterTests {
    static let mainReplay = RouteContext(hasSessions: true, sessionsOnly: false, replaysOnly: true)
    static let mainRecord = RouteContext(hasSessions: true, sessionsOnly: false, replaysOnly: false)
    static let sessionPort = RouteContext(hasSessions: false, sessionsOnly: false, replaysOnly: true)
    static let sessionsOnly = RouteContext(hasSessions: true, sessionsOnly: true, replaysOnly: true)

    func head(_ method: HTTPMethod, _ uri: String, _ headers: [(String, String)] = []) -> HTTPRequestHead {
        HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: HTTPHeaders(headers))
    }

    @Test func aPlainRequestIsReplayedOnAReplayOnlyProxyAndForwardedOtherwise() {
        #expect(ProxyRouter.route(head(.GET, "/api/users"), Self.mainReplay) == .replay)
        #expect(ProxyRouter.route(head(.POST, "/api/users"), Self.mainRecord) == .forward)
    }

    @Test func theSessionHeaderRoutesToTheSessionOnTheMainPortOnly() {
        let request = head(.GET, "/api/users", [("x-cassette-session", "abc")])
        #expect(ProxyRouter.route(request, Self.mainReplay) == .session(id: "abc"))
        // A session's own port has no sessions: the header is just a header there.
        #expect(ProxyRouter.route(request, Self.sessionPort) == .replay)
        // Even a control path goes to the session, as on its own port.
        #expect(ProxyRouter.route(head(.GET, "/__cassette/health", [("X-Cassette-Session", "abc")]), Self.mainReplay) == .session(id: "abc"))
    }

    @Test func aSessionsOnlyPortRefusesRequestsWithoutASessionButServesItsEndpoints() {
        #expect(ProxyRouter.route(head(.GET, "/api/users"), Self.sessionsOnly) == .refuse(.sessionRequired))
        #expect(ProxyRouter.route(head(.GET, "/__cassette/health"), Self.sessionsOnly) == .control(.health))
        #expect(ProxyRouter.route(head(.POST, "/__cassette/sessions"), Self.sessionsOnly) == .control(.sessions))
    }

    @Test func controlPathsGoThroughTheTable() {
        #expect(ProxyRouter.route(head(.GET, "/__cassette/health"), Self.mainRecord) == .control(.health))
        #expect(ProxyRouter.route(head(.HEAD, "/__cassette/stats?x=1"), Self.mainRecord) == .control(.stats))
        #expect(ProxyRouter.route(head(.DELETE, "/__cassette/sessions/abc"), Self.mainRecord) == .control(.sessions))
    }

    @Test func theWebUIAndItsDataAreOneEndpointThatTakesOnlyGET() throws {
        for path in ["/__cassette/ui", "/__cassette/ui/", "/__cassette/ui/app.js", "/__cassette/ui/api/interactions?status=404", "/__cassette/ui/api/live"] {
            #expect(ProxyRouter.route(head(.GET, path), Self.mainReplay) == .control(.ui), "\(path)")
        }
        #expect(ProxyRouter.route(head(.GET, "/__cassette/uix"), Self.mainReplay).isRefusal)
        guard case .refuse(.control(let refusal)) = ProxyRouter.route(head(.POST, "/__cassette/ui/api/cassettes"), Self.mainReplay) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(refusal.status == 405)
        #expect(refusal.allow == ["GET", "HEAD"])
    }

    @Test func anUnknownControlPathIs404NamingTheEndpoints() throws {
        let route = ProxyRouter.route(head(.GET, "/__cassette/nothing"), Self.mainReplay)
        guard case .refuse(.control(let refusal)) = route else {
            Issue.record("expected a refusal, got \(route)")
            return
        }
        #expect(refusal.status == 404)
        #expect(refusal.message == "the proxy has /__cassette/health and /__cassette/stats")
    }

    @Test func aMethodAnEndpointDoesNotTakeIs405WithAllow() throws {
        let route = ProxyRouter.route(head(.POST, "/__cassette/health"), Self.mainReplay)
        guard case .refuse(.control(let refusal)) = route else {
            Issue.record("expected a refusal, got \(route)")
            return
        }
        #expect(refusal.status == 405)
        #expect(refusal.allow == ["GET", "HEAD"])
        guard case .fields(let status, let fields) = refusal.answer.head else {
            Issue.record("expected a made head")
            return
        }
        #expect(status == 405)
        #expect(fields[.allow] == "GET, HEAD")
    }

    @Test func sessionsAskedForOnASessionPortAreRefusedBeforeTheirMethodIsChecked() {
        let route = ProxyRouter.route(head(.PATCH, "/__cassette/sessions/abc"), Self.sessionPort)
        #expect(route == .refuse(.control(ControlRouter.noSessionsHere)))
    }

    @Test func aPathThatOnlyStartsLikeAnEndpointIsNotIt() {
        let route = ProxyRouter.route(head(.GET, "/__cassette/sessionsX"), Self.mainReplay)
        #expect(route.isRefusal)
        #expect(ProxyRouter.route(head(.GET, "/__cassettes/health"), Self.mainReplay) == .replay)
    }
}

extension ProxyRoute {
    fileprivate var isRefusal: Bool {
        if case .refuse = self { return true }
        return false
    }
}
