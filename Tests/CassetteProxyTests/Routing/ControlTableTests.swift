import NIOHTTP1
import Testing

@testable import CassetteKernel
@testable import CassetteServing
@testable import CassetteUIServer

/// The control table as the modules fill it on a main port and on a session's port: every path
/// and sub-path, its 404 and its 405 with `Allow`, decided without a socket.
@Suite("Control table")
struct ControlTableTests {
    /// Stands for an endpoint: its name tells which one the table chose.
    struct Named: ControlEndpoint {
        let name: String
        func answer(_ request: ControlRequest) -> ControlAnswer { .now(.error(200, code: name, message: name)) }
    }

    static let mainPort = ControlTable(
        routes: ServingControls.routes(health: Named(name: "health"), stats: Named(name: "stats"), sessions: Named(name: "sessions"))
            + [UIEndpoints.route(Named(name: "ui"))])
    static let sessionPort = ControlTable(
        routes: ServingControls.routes(health: Named(name: "health"), stats: Named(name: "stats"), sessions: nil) + [UIEndpoints.refusedOnSessionPorts])

    func endpoint(_ decision: ControlTable.Decision) -> String? {
        guard case .endpoint(_, let endpoint) = decision else { return nil }
        return (endpoint as? Named)?.name
    }

    func refusal(_ decision: ControlTable.Decision, sourceLocation: SourceLocation = #_sourceLocation) -> ControlRefusal? {
        guard let refusal = decision.refusal else {
            Issue.record("expected a refusal, got \(decision)", sourceLocation: sourceLocation)
            return nil
        }
        return refusal
    }

    @Test func controlPathsGoToTheirEndpoints() {
        #expect(endpoint(Self.mainPort.route(.GET, "/__cassette/health")) == "health")
        #expect(endpoint(Self.mainPort.route(.HEAD, "/__cassette/stats?x=1")) == "stats")
        #expect(endpoint(Self.mainPort.route(.POST, "/__cassette/sessions")) == "sessions")
        #expect(endpoint(Self.mainPort.route(.DELETE, "/__cassette/sessions/abc")) == "sessions")
        #expect(endpoint(Self.mainPort.route(.GET, "/__cassette/sessions/abc/requests?method=GET")) == "sessions")
        #expect(endpoint(Self.mainPort.route(.POST, "/__cassette/sessions/abc/reset")) == "sessions")
    }

    @Test func theWebUIAndItsDataAreOneEndpointThatTakesOnlyGET() throws {
        for path in ["/__cassette/ui", "/__cassette/ui/", "/__cassette/ui/app.js", "/__cassette/ui/api/interactions?status=404", "/__cassette/ui/api/live"] {
            #expect(endpoint(Self.mainPort.route(.GET, path)) == "ui", "\(path)")
        }
        #expect(Self.mainPort.route(.GET, "/__cassette/uix").refusal?.status == 404)
        let refused = try #require(refusal(Self.mainPort.route(.POST, "/__cassette/ui/api/cassettes")))
        #expect(refused.status == 405)
        #expect(refused.allow == ["GET", "HEAD"])
    }

    @Test func anUnknownControlPathIs404NamingTheEndpoints() throws {
        let refused = try #require(refusal(Self.mainPort.route(.GET, "/__cassette/nothing")))
        #expect(refused.status == 404)
        #expect(refused.message == "the proxy has /__cassette/health and /__cassette/stats")
    }

    @Test func aMethodAnEndpointDoesNotTakeIs405WithAllow() throws {
        let refused = try #require(refusal(Self.mainPort.route(.POST, "/__cassette/health")))
        #expect(refused.status == 405)
        #expect(refused.allow == ["GET", "HEAD"])
        guard case .fields(let status, let fields) = refused.answer.head else {
            Issue.record("expected a made head")
            return
        }
        #expect(status == 405)
        #expect(fields[.allow] == "GET, HEAD")
    }

    @Test(arguments: [
        ("PUT", "/__cassette/sessions", "GET, HEAD, POST", "use GET (list) or POST (open)"),
        ("POST", "/__cassette/sessions/abc", "GET, HEAD, DELETE", "use GET (inspect) or DELETE (end)"),
        ("POST", "/__cassette/sessions/abc/requests", "GET, HEAD", "use GET"),
        ("GET", "/__cassette/sessions/abc/reset", "POST", "use POST"),
    ])
    func everySessionSubPathHasItsOwn405(method: String, path: String, allow: String, advice: String) throws {
        let refused = try #require(refusal(Self.mainPort.route(HTTPMethod(rawValue: method), path)))
        #expect(refused.status == 405)
        #expect(refused.allow.joined(separator: ", ") == allow)
        #expect(refused.message.contains(advice), "\(refused.message)")
    }

    @Test func aPathBelowTheSessionsThatIsNoneOfTheirsIs404NamingThem() throws {
        for path in ["/__cassette/sessions/abc/replay", "/__cassette/sessions/a/b/c"] {
            let refused = try #require(refusal(Self.mainPort.route(.GET, path)))
            #expect(refused.status == 404)
            #expect(refused.message.contains("/ID/requests"), "\(path)")
        }
    }

    @Test func aSessionPortRefusesSessionsAndTheUIBeforeTheirMethodIsChecked() throws {
        #expect(Self.sessionPort.route(.PATCH, "/__cassette/sessions/abc").refusal == SessionEndpoints.noSessionsHere)
        #expect(Self.sessionPort.route(.GET, "/__cassette/sessions").refusal == SessionEndpoints.noSessionsHere)
        #expect(Self.sessionPort.route(.GET, "/__cassette/ui/").refusal?.code == "no_ui_here")
        #expect(endpoint(Self.sessionPort.route(.GET, "/__cassette/health")) == "health")
    }

    @Test func aPathThatOnlyStartsLikeAnEndpointIsNotIt() {
        #expect(Self.mainPort.route(.GET, "/__cassette/sessionsX").refusal?.status == 404)
        #expect(!Self.mainPort.claims("/__cassettes/health"))
    }

    @Test func aTableUnderTheRootClaimsEveryPath() {
        let table = ControlTable(
            prefix: "/", routes: [ControlTable.Route(path: "/", endpoint: Named(name: "root"), methods: [.GET], includesBelow: true)])
        #expect(table.claims("/anything"))
        #expect(endpoint(table.route(.GET, "/anything/below?q=1")) == "root")
        #expect(endpoint(table.route(.GET, "/")) == "root")
        #expect(table.route(.POST, "/x").refusal?.status == 405)
    }
}
