import NIOHTTP1
import Testing

@testable import CassetteServing

/// Where a request to a listener serving a cassette goes, as a pure function of its head and
/// what the listener serves: no socket. Control paths never get here (`ControlTableTests`).
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

    @Test func aSessionsOnlyPortRefusesRequestsWithoutASession() {
        #expect(ProxyRouter.route(head(.GET, "/api/users"), Self.sessionsOnly) == .refuse(.sessionRequired))
        #expect(ProxyRouter.route(head(.GET, "/api/users", [("X-Cassette-Session", "abc")]), Self.sessionsOnly) == .session(id: "abc"))
    }
}
