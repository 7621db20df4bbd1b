import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `/__cassette/sessions` against the real binary: each session serves its own cassette on its
/// own port (and through `X-Cassette-Session` on the main one), keeps a journal, resets, and ends
/// with a summary.
@Suite("Proxy sessions: endpoints")
final class ProxySessionEndpointTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }

    init() throws {
        workspace = try CLIWorkspace()
    }

    static func body(_ text: String) -> Data { Data(#"{"from":"\#(text)"}"#.utf8) }

    /// Cassettes `dev`, `login` and `signup` answering the same paths differently; `login` has a
    /// sequence of two answers for `/api/poll`.
    func recordFixtures() async throws {
        var interactions: [Interaction] = []
        for cassette in ["dev", "login", "signup"] {
            interactions.append(Recordings.make(.get, "/api/users", cassette: cassette, body: Self.body(cassette)))
            interactions.append(Recordings.make(.get, "/api/me?fields=name", cassette: cassette, body: Self.body(cassette + " me")))
        }
        interactions.append(Recordings.make(.get, "/api/poll", cassette: "login", body: Self.body("poll 1")))
        interactions.append(Recordings.make(.get, "/api/poll", cassette: "login", body: Self.body("poll 2")))
        try await workspace.record(interactions)
    }

    @Test func aSessionServesItsOwnCassetteOnItsOwnPortAndIsListed() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { proxy async throws in
            let created = try await proxy.postSession(#"{"cassette": "login", "mode": "none"}"#)
            #expect(created.statusCode == 201)
            #expect(created.cassetteSource == "endpoint")
            let json = try created.jsonObject()
            let id = try #require(json["id"] as? String)
            let baseURL = try #require((json["baseURL"] as? String).flatMap(URL.init(string:)))
            #expect(json["cassette"] as? String == "login")
            #expect(json["mode"] as? String == "none")
            #expect(baseURL.host == "127.0.0.1")
            #expect(baseURL.port != nil && baseURL.port != proxy.port)

            let session = OpenedSession(proxy: proxy, id: id, baseURL: baseURL)
            let answer = try await session.get("/api/users")
            #expect(answer.statusCode == 200)
            #expect(answer.body == Self.body("login"))
            #expect(answer.cassetteSource == "hit")
            // The main port still serves its own cassette.
            #expect(try await proxy.get("/api/users").body == Self.body("dev"))

            let other = try await proxy.openSession("signup")
            #expect(other.port != session.port)
            #expect(try await other.get("/api/users").body == Self.body("signup"))

            let listed = try await proxy.get("/__cassette/sessions").jsonObject()
            #expect(listed["count"] as? Int == 2)
            #expect(listed["maxSessions"] as? Int == 64)
            let sessions = try #require(listed["sessions"] as? [[String: Any]])
            #expect(Set(sessions.compactMap { $0["id"] as? String }) == [id, other.id])
            let login = try #require(sessions.first { $0["id"] as? String == id })
            #expect(login["cassette"] as? String == "login")
            #expect(login["baseURL"] as? String == baseURL.absoluteString)
            #expect(login["requests"] as? Int == 1)
            // Its request lines name it; the main port's do not.
            // Each shard's lines are written when its buffer flushes: wait for the main port's
            // own line (it ends the line), not any line with its text.
            try await proxy.waitForLogLine(containing: "ms replayed\n")
            try await proxy.waitForLogLine(containing: "replayed session \(id)")
            #expect(proxy.outputLines.contains { $0.hasPrefix("GET /api/users 200 ") && $0.hasSuffix("ms replayed") })
            #expect(proxy.outputLines.contains { $0.hasPrefix("session \(id) started: cassette \"login\", mode none, \(baseURL.absoluteString)") })
            // A session's own port has the health endpoint, for its cassette.
            let health = try await session.get("/__cassette/health").jsonObject()
            #expect(health["cassette"] as? String == "login")
        }
    }

    @Test func theHeaderRoutesAMainPortRequestToTheSessionAndAnUnknownIdIsRefused() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { proxy async throws in
            let session = try await proxy.openSession("signup")
            let routed = try await session.getThroughMainPort("/api/me?fields=name")
            #expect(routed.statusCode == 200)
            #expect(routed.body == Self.body("signup me"))
            #expect(try await session.requests().count == 1)

            let unknown = try await proxy.get("/api/users", headers: [HTTPField.Name("X-Cassette-Session")!: "0000dead"])
            #expect(unknown.statusCode == 404)
            let error = try unknown.jsonObject()
            #expect(error["error"] as? String == "unknown_session")
            #expect((error["message"] as? String)?.contains("POST /__cassette/sessions") == true)
            // Nothing went to the main cassette's statistics or the session's journal.
            #expect(try await proxy.get("/__cassette/stats").jsonObject()["hits"] as? Int == 0)
            #expect(try await session.requests().count == 1)
        }
    }

    /// One keep-alive connection keeps its route to a session, but never past the session's end,
    /// and follows a new id at once.
    @Test func aConnectionFollowsTheHeaderAcrossSessionsAndNeverServesAnEndedOne() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { proxy async throws in
            let signup = try await proxy.openSession("signup")
            let login = try await proxy.openSession("login")
            let connection = try await proxy.connect()
            func get(_ target: String, session: String) async throws -> RawHTTPResponse {
                try await connection.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Cassette-Session: \(session)\r\n\r\n")
                return try #require(try await connection.receiveResponses(1).first)
            }
            #expect(try await get("/api/users", session: signup.id).body == [UInt8](Self.body("signup")))
            #expect(try await get("/api/users", session: login.id).body == [UInt8](Self.body("login")))
            #expect(try await get("/api/users", session: signup.id).body == [UInt8](Self.body("signup")))
            #expect(try await signup.end().statusCode == 200)
            let ended = try await get("/api/users", session: signup.id)
            #expect(ended.status == 404)
            #expect(ended.bodyText.contains("unknown_session"), "\(ended.bodyText)")
            #expect(try await get("/api/users", session: login.id).body == [UInt8](Self.body("login")))
            #expect(try await login.requests().count == 2)
        }
    }

    @Test func theJournalListsRequestsInArrivalOrderWithFiltersCountsAndPositions() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { proxy async throws in
            let session = try await proxy.openSession("login")
            for target in ["/api/poll", "/api/users", "/api/poll", "/api/me?fields=name", "/api/poll", "/api/nowhere?q=1"] {
                _ = try await session.get(target)
            }
            _ = try await session.send(.post, "/api/users", body: Data("{}".utf8))
            let journal = try await session.journal()
            #expect(journal["count"] as? Int == 7)
            let requests = try #require(journal["requests"] as? [[String: Any]])
            #expect(requests.map { $0["path"] as? String } == ["/api/poll", "/api/users", "/api/poll", "/api/me", "/api/poll", "/api/nowhere", "/api/users"])
            #expect(requests.map { $0["method"] as? String } == ["GET", "GET", "GET", "GET", "GET", "GET", "POST"])
            #expect(requests.map { $0["source"] as? String } == ["hit", "hit", "hit", "hit", "hit", "miss", "miss"])
            #expect(requests.map { $0["status"] as? Int } == [200, 200, 200, 200, 200, 404, 404])
            #expect(requests.map { $0["position"] as? Int } == [0, 0, 1, 0, 2, 0, 0])
            #expect(requests[3]["query"] as? String == "fields=name")
            #expect(requests[0]["query"] is NSNull)
            #expect(requests[3]["key"] as? String == "GET /api/me?fields=name")
            #expect((requests[6]["key"] as? String)?.hasPrefix("POST /api/users") == true)
            for request in requests {
                #expect((request["durationMs"] as? Double).map { $0 >= 0 } == true)
                #expect((request["at"] as? String)?.hasSuffix("Z") == true)
            }
            // The sequence went on: poll 1, poll 2, then the last one again.
            #expect(try await session.get("/api/poll").body == Self.body("poll 2"))

            let polls = try await session.journal("?path=/api/poll")
            #expect(polls["count"] as? Int == 4)
            #expect((polls["requests"] as? [[String: Any]])?.map { $0["position"] as? Int } == [0, 1, 2, 3])
            #expect(try await session.journal("?method=post")["count"] as? Int == 1)
            #expect(try await session.journal("?method=GET&path=/api/users")["count"] as? Int == 1)
            #expect(try await session.journal("?path=/api/*")["count"] as? Int == 8)
            #expect(try await session.journal("?path=/elsewhere")["count"] as? Int == 0)
        }
    }

    @Test func aSecretInTheTargetIsRedactedInTheJournalAsInTheLog() async throws {
        try await workspace.record([Recordings.make(.get, "/api/items", cassette: "login")])
        try await withInProcessReplayer(store: store, arguments: ["--cassette", "login"]) { proxy async throws in
            let session = try await proxy.openSession("login")
            _ = try await session.get("/api/items?api_key=hunter2-secret-value")
            let request = try #require(try await session.requests().first)
            #expect(request["query"] as? String == "api_key=REDACTED")
            #expect(!(try await session.journal("").description.contains("hunter2")))
        }
    }

    @Test func resetEmptiesTheJournalAndStartsEverySequenceAgain() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { proxy async throws in
            let session = try await proxy.openSession("login")
            #expect(try await session.get("/api/poll").body == Self.body("poll 1"))
            #expect(try await session.get("/api/poll").body == Self.body("poll 2"))
            let reset = try await session.reset()
            #expect(reset.statusCode == 200)
            #expect(try reset.jsonObject()["requests"] as? Int == 0)
            #expect(try await session.requests().isEmpty)
            #expect(try await session.get("/api/poll").body == Self.body("poll 1"))
            #expect(try await session.requests().map { $0["position"] as? Int } == [0])
        }
    }

    @Test func deleteClosesTheListenerAndAnswersTheSummary() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { proxy async throws in
            let session = try await proxy.openSession("login")
            _ = try await session.get("/api/users")
            _ = try await session.get("/api/users")
            _ = try await session.get("/api/usres")
            _ = try await session.get("/api/usres")
            let ended = try await session.end()
            #expect(ended.statusCode == 200)
            let summary = try ended.jsonObject()
            #expect(summary["id"] as? String == session.id)
            #expect(summary["cassette"] as? String == "login")
            #expect(summary["served"] as? Int == 2)
            #expect(summary["recorded"] as? Int == 0)
            #expect(summary["unused"] as? [String] == ["GET /api/me?fields=name", "GET /api/poll"])
            let missed = try #require(summary["missed"] as? [[String: Any]])
            #expect(missed.count == 1)
            #expect(missed.first?["key"] as? String == "GET /api/usres")
            #expect(missed.first?["count"] as? Int == 2)
            #expect((missed.first?["message"] as? String)?.hasPrefix("No recording of GET /api/usres in cassette \"login\"") == true)
            let nearest = try #require(missed.first?["nearest"] as? [[String: Any]])
            let users = try #require(nearest.first { $0["key"] as? String == "GET /api/users" })
            #expect(users["differences"] as? [String] == ["path /api/usres vs /api/users"])

            // Its port is closed and its id is gone.
            await #expect(throws: TransportError.self) { try await session.get("/api/users") }
            #expect(try await proxy.get("/__cassette/sessions/\(session.id)").statusCode == 404)
            #expect(try await session.end().statusCode == 404)
            #expect(try await proxy.liveSessions().isEmpty)
            #expect(try await proxy.get("/api/users").statusCode == 200)
        }
    }

    @Test func strictDeleteIs409WhenAnythingMissedAnd200Otherwise() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { proxy async throws in
            let missing = try await proxy.openSession("login")
            _ = try await missing.get("/api/users")
            _ = try await missing.get("/api/nowhere")
            let refused = try await missing.end(strict: true)
            #expect(refused.statusCode == 409)
            let body = try refused.jsonObject()
            #expect(body["error"] as? String == "session_missed")
            #expect((body["message"] as? String)?.contains("GET /api/nowhere") == true)
            #expect((body["missed"] as? [[String: Any]])?.count == 1)
            #expect(body["served"] as? Int == 1)

            let clean = try await proxy.openSession("login")
            _ = try await clean.get("/api/users")
            #expect(try await clean.end(strict: true).statusCode == 200)
        }
    }

    @Test func aReplayProxyOpensSessionsInModeNoneOnly() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { proxy async throws in
            let defaulted = try await proxy.postSession(#"{"cassette": "login"}"#)
            #expect(defaulted.statusCode == 201)
            #expect(try defaulted.jsonObject()["mode"] as? String == "none")
            for mode in ["once", "missing", "all"] {
                let refused = try await proxy.postSession(#"{"cassette": "login", "mode": "\#(mode)"}"#)
                #expect(refused.statusCode == 400)
                let error = try refused.jsonObject()
                #expect(error["error"] as? String == "mode_not_allowed")
                #expect((error["message"] as? String)?.contains("--on-miss record") == true)
            }
        }
    }

    @Test func aReplayThatRecordsItsMissesLetsSessionsRecord() async throws {
        try await recordFixtures()
        try await withSampleAPI { api async throws in
            try await withInProcessReplayer(store: store, arguments: ["--upstream", api.absoluteString, "--on-miss", "record"]) { proxy async throws in
                let session = try await proxy.openSession("fresh", mode: "none")
                let answer = try await session.get("/api/health")
                #expect(answer.statusCode == 200)
                #expect(answer.cassetteSource == "recorded")
                #expect(try await session.requests().first?["source"] as? String == "recorded")
            }
        }
        #expect(try await workspace.count(cassette: "fresh") == 1)
    }
}
