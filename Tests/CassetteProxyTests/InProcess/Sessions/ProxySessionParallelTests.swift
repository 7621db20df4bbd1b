import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Fifty sessions at once over fifty cassettes with the same paths and sequences: no answer
/// crosses sessions, every journal is exact, and ending one leaves the others serving.
@Suite("Proxy sessions: fifty in parallel")
final class ProxySessionParallelTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }
    static let count = 50

    init() throws {
        workspace = try CLIWorkspace()
    }

    static func body(_ text: String) -> Data { Data(#"{"from":"\#(text)"}"#.utf8) }

    /// Every cassette `c0` … `c49` answers `/api/poll` with a sequence of two and `/api/users/1`
    /// once, each body naming the cassette.
    func recordFixtures() async throws {
        var interactions = [Recordings.make(.get, "/api/users/1")]
        for number in 0..<Self.count {
            let cassette = "c\(number)"
            interactions.append(Recordings.make(.get, "/api/poll", cassette: cassette, body: Self.body("\(cassette) poll 1")))
            interactions.append(Recordings.make(.get, "/api/poll", cassette: cassette, body: Self.body("\(cassette) poll 2")))
            interactions.append(Recordings.make(.get, "/api/users/1", cassette: cassette, body: Self.body(cassette)))
        }
        try await workspace.record(interactions)
    }

    /// Even sessions are asked on their own port, odd ones through the main port with the header.
    static func get(_ session: OpenedSession, number: Int, _ target: String) async throws -> TransportResponse {
        number.isMultiple(of: 2) ? try await session.get(target) : try await session.getThroughMainPort(target)
    }

    @Test func fiftySessionsInParallelKeepToTheirOwnCassettesSequencesAndJournals() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store, arguments: ["--quiet"]) { proxy async throws in
            let sessions = try await withThrowingTaskGroup(of: (Int, OpenedSession).self) { group in
                for number in 0..<Self.count {
                    group.addTask { (number, try await proxy.openSession("c\(number)")) }
                }
                var opened: [Int: OpenedSession] = [:]
                for try await (number, session) in group { opened[number] = session }
                return opened
            }
            #expect(Set(sessions.values.map(\.port)).count == Self.count)
            #expect(Set(sessions.values.map(\.id)).count == Self.count)
            #expect(try await proxy.liveSessions().count == Self.count)

            // Every session, all at once: the sequence, an overlapping path, a miss, the sequence again.
            let targets = ["/api/poll", "/api/users/1", "/api/poll", "/api/nowhere", "/api/poll"]
            let answers = try await withThrowingTaskGroup(of: (Int, [Data]).self) { group in
                for (number, session) in sessions {
                    group.addTask {
                        var bodies: [Data] = []
                        for target in targets { bodies.append(try await Self.get(session, number: number, target).body) }
                        return (number, bodies)
                    }
                }
                var all: [Int: [Data]] = [:]
                for try await (number, bodies) in group { all[number] = bodies }
                return all
            }
            for number in 0..<Self.count {
                let bodies = try #require(answers[number])
                let cassette = "c\(number)"
                #expect(bodies[0] == Self.body("\(cassette) poll 1"), "\(cassette)")
                #expect(bodies[1] == Self.body(cassette), "\(cassette)")
                #expect(bodies[2] == Self.body("\(cassette) poll 2"), "\(cassette)")
                #expect(String(decoding: bodies[3], as: UTF8.self).contains(#"cassette \"\#(cassette)\""#), "\(cassette)")
                #expect(bodies[4] == Self.body("\(cassette) poll 2"), "\(cassette)")
            }

            // Exact journals, in each session's own order.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (number, session) in sessions {
                    group.addTask {
                        let journal = try await session.journal()
                        #expect(journal["count"] as? Int == targets.count, "c\(number)")
                        let requests = journal["requests"] as? [[String: Any]] ?? []
                        #expect(requests.map { $0["path"] as? String } == targets, "c\(number)")
                        #expect(requests.map { $0["source"] as? String } == ["hit", "hit", "hit", "miss", "hit"], "c\(number)")
                        #expect(requests.map { $0["position"] as? Int } == [0, 0, 1, 0, 2], "c\(number)")
                    }
                }
                try await group.waitForAll()
            }
            // The main port's own cassette saw none of it.
            #expect(try await proxy.get("/__cassette/stats").jsonObject()["hits"] as? Int == 0)

            // Ending one leaves the others serving, in parallel with the ending.
            let ended = try #require(sessions[0])
            async let summary = ended.end(strict: true)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (number, session) in sessions where number != 0 {
                    group.addTask {
                        let answer = try await Self.get(session, number: number, "/api/users/1")
                        #expect(answer.statusCode == 200, "c\(number)")
                        #expect(answer.body == Self.body("c\(number)"), "c\(number)")
                    }
                }
                try await group.waitForAll()
            }
            let endedAnswer = try await summary
            #expect(endedAnswer.statusCode == 409)
            let endedSummary = try endedAnswer.jsonObject()
            #expect(endedSummary["served"] as? Int == 4)
            #expect((endedSummary["missed"] as? [[String: Any]])?.map { $0["key"] as? String } == ["GET /api/nowhere"])
            #expect(try await proxy.liveSessions().count == Self.count - 1)

            // Every other session still holds exactly its own requests, and ends with its own summary.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (number, session) in sessions where number != 0 {
                    group.addTask {
                        let response = try await session.end()
                        #expect(response.statusCode == 200, "c\(number)")
                        let summary = try response.jsonObject()
                        #expect(summary["cassette"] as? String == "c\(number)")
                        #expect(summary["served"] as? Int == 5, "c\(number)")
                        #expect(summary["unused"] as? [String] == [], "c\(number)")
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await proxy.liveSessions().isEmpty)
        }
    }
}
