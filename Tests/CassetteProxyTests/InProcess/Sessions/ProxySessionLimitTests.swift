import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// `--max-sessions` and `--session-idle-timeout` (their bad values: `ProxyCLIErrorTests`; a SIGTERM
/// with sessions open: `ProxyShutdownTests`).
@Suite("Proxy sessions: limits and shutdown")
final class ProxySessionLimitTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func theLimitRefusesOneSessionTooManyUntilOneEnds() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users")])
        try await withInProcessReplayer(store: store, arguments: ["--max-sessions", "2"]) { proxy async throws in
            let first = try await proxy.openSession("dev")
            _ = try await proxy.openSession("dev")
            let refused = try await proxy.postSession(#"{"cassette": "dev"}"#)
            #expect(refused.statusCode == 429)
            let error = try refused.jsonObject()
            #expect(error["error"] as? String == "too_many_sessions")
            #expect((error["message"] as? String)?.contains("--max-sessions 2") == true)
            #expect(try await proxy.liveSessions().count == 2)

            #expect(try await first.end().statusCode == 200)
            let third = try await proxy.openSession("dev")
            #expect(try await third.get("/api/users").statusCode == 200)
        }
    }

    @Test func zeroSessionsRefusesEveryOne() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users")])
        try await withInProcessReplayer(store: store, arguments: ["--max-sessions", "0"]) { proxy async throws in
            let refused = try await proxy.postSession(#"{"cassette": "dev"}"#)
            #expect(refused.statusCode == 429)
            #expect((try refused.jsonObject()["message"] as? String)?.contains("--max-sessions 0") == true)
        }
    }

    /// The timeout is seconds, not milliseconds: the test's own request must reach the session
    /// before it times out, and a loaded CI run once took more than 300 ms between the two.
    @Test func anIdleSessionIsClosedAndLogged() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users")])
        try await withInProcessReplayer(store: store, arguments: ["--session-idle-timeout", "5s"]) { proxy async throws in
            let session = try await proxy.openSession("dev")
            #expect(try await session.get("/api/users").statusCode == 200)
            try await proxy.waitForLogLine(containing: "session \(session.id) closed after 5.00 s without a request")
            #expect(try await proxy.get("/__cassette/sessions/\(session.id)").statusCode == 404)
            #expect(try await proxy.liveSessions().isEmpty)
            await #expect(throws: TransportError.self) { try await session.get("/api/users") }
            let line = try #require(proxy.outputLines.first { $0.contains("closed after") })
            #expect(line.hasSuffix("(--session-idle-timeout): served 1, recorded 0, missed 0, unused recordings 0"))
        }
    }

}
