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

/// `--max-sessions`, `--session-idle-timeout`, and a SIGTERM with sessions open.
@Suite("Proxy sessions: limits and shutdown")
final class ProxySessionLimitTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func theLimitRefusesOneSessionTooManyUntilOneEnds() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users")])
        try await withReplayer(store: store, arguments: ["--max-sessions", "2"]) { proxy async throws in
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
        try await withReplayer(store: store, arguments: ["--max-sessions", "0"]) { proxy async throws in
            let refused = try await proxy.postSession(#"{"cassette": "dev"}"#)
            #expect(refused.statusCode == 429)
            #expect((try refused.jsonObject()["message"] as? String)?.contains("--max-sessions 0") == true)
        }
    }

    /// The timeout is seconds, not milliseconds: the test's own request must reach the session
    /// before it times out, and a loaded CI run once took more than 300 ms between the two.
    @Test func anIdleSessionIsClosedAndLogged() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users")])
        try await withReplayer(store: store, arguments: ["--session-idle-timeout", "5s"]) { proxy async throws in
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

    @Test func badLimitFlagsAreOneLineErrors() async throws {
        for (arguments, message) in [
            (["--max-sessions=-1"], "--max-sessions -1 is out of range; use a whole number from 0 to 10000"),
            (["--session-idle-timeout", "10x"], "--session-idle-timeout 10x is not a duration from 100ms to 24h; use seconds or"),
            (["--session-idle-timeout", "50ms"], "from 100ms to 24h"),
            (["--session-idle-timeout", "2d"], "from 100ms to 24h"),
        ] {
            let result = try await workspace.run(arguments: ["replay", "--port", "0"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test func sigtermWithSessionsOpenAnswersWhatWasTakenAndClosesTheStoreCleanly() async throws {
        let store = workspace.path("c.db")
        try await withSampleAPI { api async throws in
            try await withRecorder(upstream: api, store: store) { proxy async throws in
                let slow = try await proxy.openSession("slow", mode: "missing")
                let quick = try await proxy.openSession("quick", mode: "missing")
                #expect(try await quick.get("/api/users/1").cassetteSource == "recorded")

                // Pipelined on one connection: once the first answer is in, the proxy has taken the slow second request.
                let connection = try await RawConnection.connect(port: slow.port)
                try await connection.send(RawConnection.get("/api/health") + RawConnection.get("/api/slow?ms=700"))
                let early = try await connection.receive { RawHTTPResponse.parseAll($0).count >= 1 }
                proxy.process.send(signal: SIGTERM)
                let responses = RawHTTPResponse.parseAll(early + (try await connection.receiveUntilClosed()))
                #expect(responses.map(\.status) == [200, 200])
                #expect(responses.last?.header("X-Cassette") == "recorded")
                #expect(try await proxy.process.waitForExit() == .exited(0))

                let closing = proxy.outputLines.filter { $0.contains("closed as the proxy stopped") }
                #expect(closing.count == 2)
                #expect(closing.contains { $0.hasPrefix("session \(slow.id) ") && $0.hasSuffix("served 2, recorded 2, missed 0, unused recordings 0") })
                #expect(closing.contains { $0.hasPrefix("session \(quick.id) ") && $0.hasSuffix("served 1, recorded 1, missed 0, unused recordings 0") })
                #expect(proxy.outputLines.last == "recorded 0, replayed 0, missed 0, unused recordings 0")
            }
        }
        // Everything answered is in the store, which closed cleanly (no write-ahead log left behind).
        #expect(try await StoreFiles.interactions(at: store, cassette: "slow").map(\.key).sorted() == ["GET /api/health", "GET /api/slow?ms=700"])
        #expect(try await StoreFiles.interactions(at: store, cassette: "quick").map(\.key) == ["GET /api/users/1"])
        #expect(!FileManager.default.fileExists(atPath: store + "-wal"))
    }
}
