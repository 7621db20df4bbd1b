import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WellPlateCore

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket

/// The journal without a socket: positions per key, the summary's tallies, the bound on entries,
/// the filters and reset.
@Suite("Session journal")
struct SessionJournalTests {
    static func answer(_ status: Int, _ source: ProxyAnswer.Source) -> ProxyAnswer {
        .error(status, code: "x", message: "x", source: source)
    }

    static func miss(_ key: String) -> ProxyAnswer {
        var answer = answer(404, .miss)
        answer.miss = ReportedMiss(CassetteMiss(method: .get, key: key, cassette: "c", storePath: "c.db", nearest: []))
        return answer
    }

    @Test func positionsCountPerKeyAndTheTallyCountsEverySource() {
        let journal = SessionJournal()
        let started = NIODeadline.now()
        journal.add(method: .GET, target: "/a", key: "GET /a", answer: Self.answer(200, .replayed), started: started)
        journal.add(method: .GET, target: "/b?x=1", key: "GET /b?x=1", answer: Self.answer(200, .recorded), started: started + .nanoseconds(1))
        journal.add(method: .GET, target: "/a", key: "GET /a", answer: Self.answer(200, .replayed), started: started + .nanoseconds(2))
        journal.add(method: .GET, target: "/c", key: "GET /c", answer: Self.miss("GET /c"), started: started + .nanoseconds(3))
        journal.add(method: .GET, target: "/c", key: "GET /c", answer: Self.miss("GET /c"), started: started + .nanoseconds(4))
        journal.add(method: .PUT, target: "/d", key: "PUT /d", answer: Self.answer(200, .passthrough), started: started + .nanoseconds(5))
        journal.add(method: .GET, target: "/e", key: "GET /e", answer: Self.answer(410, .stale), started: started + .nanoseconds(6))
        journal.add(method: .CONNECT, target: "x:1", key: nil, answer: Self.answer(501, .error), started: started + .nanoseconds(7))
        journal.add(method: .GET, target: "/__cassette/health", key: nil, answer: Self.answer(200, .endpoint), started: started + .nanoseconds(8))

        let (entries, dropped) = journal.entries
        #expect(dropped == 0)
        #expect(entries.map(\.target) == ["/a", "/b?x=1", "/a", "/c", "/c", "/d", "/e", "x:1"])
        #expect(entries.map(\.position) == [0, 0, 1, 0, 1, 0, 0, nil])
        #expect(entries.map(\.source) == [.hit, .recorded, .hit, .miss, .miss, .passthrough, .miss, .error])
        #expect(entries[1].path == "/b" && entries[1].query == "x=1" && entries[0].query == nil)
        let summary = SessionSummary(journal.tally, unused: ["GET /z"])
        #expect(summary.served == 4)
        #expect(summary.recorded == 1)
        #expect(summary.missed.map(\.key) == ["GET /c", "GET /e"])
        #expect(summary.missed.map(\.count) == [2, 1])
        #expect(summary.missed[0].message.hasPrefix("No recording of GET /c in cassette \"c\""))
        #expect(summary.missed[1].message.contains("--stale fail"))
        #expect(summary.line == "served 4, recorded 1, missed 3, unused recordings 1")
    }

    @Test func entriesAreBoundedButTheTalliesCountEveryRequest() throws {
        let journal = SessionJournal(limit: 10)
        let started = NIODeadline.now()
        for number in 0..<25 {
            journal.add(method: .GET, target: "/poll", key: "GET /poll", answer: Self.answer(200, .replayed), started: started + .nanoseconds(Int64(number)))
        }
        let (entries, dropped) = journal.entries
        #expect(dropped == 15)
        #expect(entries.map(\.position) == Array(15..<25))
        #expect(journal.count == 25)
        #expect(journal.tally.served == 25)
        let json = journal.json(filter: .init())
        #expect(json["dropped"] == .integer(Int64(dropped)))
        #expect(json["count"] == .integer(Int64(entries.count)))
    }

    @Test func entriesComeInArrivalOrderWhateverOrderTheirAnswersWentOut() {
        let journal = SessionJournal()
        let started = NIODeadline.now()
        journal.add(method: .GET, target: "/late", key: "GET /late", answer: Self.answer(200, .replayed), started: started + .milliseconds(5))
        journal.add(method: .GET, target: "/early", key: "GET /early", answer: Self.answer(200, .replayed), started: started)
        #expect(journal.entries.entries.map(\.target) == ["/early", "/late"])
        #expect(journal.date(of: journal.entries.entries[0]) < journal.date(of: journal.entries.entries[1]))
    }

    @Test func shardsMergeByArrivalWithPositionsAndMissesAcrossEventLoops() {
        let journal = SessionJournal(shards: 3)
        let started = NIODeadline.now()
        journal.add(method: .GET, target: "/p", key: "GET /p", answer: Self.answer(200, .replayed), started: started + .nanoseconds(3), shard: 2)
        journal.add(method: .GET, target: "/p", key: "GET /p", answer: Self.answer(200, .replayed), started: started, shard: 1)
        journal.add(method: .GET, target: "/m", key: "GET /m", answer: Self.miss("GET /m"), started: started + .nanoseconds(5), shard: 1)
        journal.add(method: .GET, target: "/n", key: "GET /n", answer: Self.miss("GET /n"), started: started + .nanoseconds(4), shard: 2)
        journal.add(method: .GET, target: "/m", key: "GET /m", answer: Self.miss("GET /m"), started: started + .nanoseconds(6), shard: 2)
        journal.add(method: .GET, target: "/p", key: "GET /p", answer: Self.answer(200, .replayed), started: started + .nanoseconds(7), shard: 9)
        let entries = journal.entries.entries
        #expect(entries.map(\.target) == ["/p", "/p", "/n", "/m", "/m", "/p"])
        #expect(entries.map(\.position) == [0, 1, 0, 0, 1, 2])
        let tally = journal.tally
        #expect(tally.served == 3)
        #expect(tally.missed.map(\.key) == ["GET /n", "GET /m"])
        #expect(tally.missed.map(\.count) == [1, 2])
        #expect(journal.count == 6)
    }

    @Test func filtersMatchMethodAnyCaseAndPathExactlyOrByPrefix() {
        let journal = SessionJournal()
        let started = NIODeadline.now()
        for (number, (method, target)) in [(HTTPMethod.GET, "/api/users/1"), (.POST, "/api/users"), (.GET, "/api/a%20b"), (.GET, "/other")].enumerated() {
            journal.add(
                method: method, target: target, key: "\(method.rawValue) \(target)", answer: Self.answer(200, .replayed),
                started: started + .nanoseconds(Int64(number)))
        }
        func count(_ filter: SessionJournal.Filter) -> Int { journal.entries.entries.filter(filter.matches).count }
        #expect(count(.init(method: "post")) == 1)
        #expect(count(.init(path: "/api/users")) == 1)
        #expect(count(.init(path: "/api/users*")) == 2)
        #expect(count(.init(path: "/api/*")) == 3)
        #expect(count(.init(path: "/api/a b")) == 1)
        #expect(count(.init(path: "/api/a%20b")) == 1)
        #expect(count(.init(method: "GET", path: "/api/*")) == 2)
    }

    @Test func clearEmptiesEntriesAndTallies() {
        let journal = SessionJournal()
        journal.add(method: .GET, target: "/a", key: "GET /a", answer: Self.miss("GET /a"), started: .now())
        journal.clear()
        #expect(journal.count == 0)
        #expect(journal.tally.missed.isEmpty)
        journal.add(method: .GET, target: "/a", key: "GET /a", answer: Self.answer(200, .replayed), started: .now())
        #expect(journal.entries.entries.map(\.position) == [0])
    }
}

@Suite("Session journal GraphQL operations")
struct SessionJournalGraphQLTests {
    @Test func anEntryNamesTheGraphQLOperationItsKeyCarries() throws {
        let journal = SessionJournal()
        let started = NIODeadline.now()
        let key = "POST /graphql gql:query:GetUser body:sha256:a5c54e9ec9a42cbe"
        journal.add(method: .POST, target: "/graphql", key: key, answer: SessionJournalTests.answer(200, .replayed), started: started)
        journal.add(
            method: .GET, target: "/api/users", key: "GET /api/users", answer: SessionJournalTests.answer(200, .replayed), started: started + .nanoseconds(1))
        let rows = try #require(journal.json(filter: .init())["requests"]?.arrayValue)
        #expect(rows.map { $0["operation"] } == [.string("query GetUser"), .null])
    }
}
