import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Many clients at once: nothing lost while recording, nothing served twice while replaying.
@Suite("Proxy under concurrent load")
final class ProxyConcurrencyTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// 150 requests with a key each, and 50 sharing one key (each answered with its attempt number).
    static let distinctTargets = (0..<150).map { "/api/echo?n=\($0)" }
    static let sharedTarget = "/api/flaky?key=shared&failures=0"
    static let sharedCount = 50
    static let sharedKey = "GET /api/flaky?failures=0&key=REDACTED"

    /// Sends every target at once and returns (target, response) pairs.
    static func sendAll(_ targets: [String], to proxy: any RunningProxy) async throws -> [(target: String, response: TransportResponse)] {
        try await withThrowingTaskGroup(of: (String, TransportResponse).self) { group in
            for target in targets {
                group.addTask { (target, try await proxy.get(target)) }
            }
            var results: [(target: String, response: TransportResponse)] = []
            for try await result in group { results.append(result) }
            return results
        }
    }

    @Test func twoHundredParallelRequestsAreAllRecordedThenAllReplayed() async throws {
        let targets = Self.distinctTargets + Array(repeating: Self.sharedTarget, count: Self.sharedCount)
        let recorded = try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store, arguments: ["--quiet"]) { recorder async throws in
                let results = try await Self.sendAll(targets, to: recorder)
                await recorder.stop()
                #expect(recorder.summaryLine == "recorded 200, replayed 0, missed 0, unused recordings 0")
                return results
            }
        }
        #expect(recorded.count == 200)
        #expect(recorded.allSatisfy { $0.response.statusCode == 200 && $0.response.cassetteSource == "recorded" })

        let stored = try await StoreFiles.interactions(at: store)
        #expect(stored.count == 200)
        let shared = stored.filter { $0.key == Self.sharedKey }
        #expect(shared.map(\.sequence).sorted() == Array(0..<Self.sharedCount))
        #expect(Set(stored.filter { $0.key != Self.sharedKey }.map(\.sequence)) == [0])
        let sharedBodies = shared.map(\.responseBody)
        #expect(Set(sharedBodies).count == Self.sharedCount, "every attempt number was recorded once")

        let (replayed, stats) = try await withInProcessReplayer(store: store, arguments: ["--quiet"]) { replayer async throws in
            let replayed = try await Self.sendAll(targets, to: replayer)
            return (replayed, try await replayer.get("/__cassette/stats"))
        }
        #expect(try stats.jsonObject()["hits"] as? Int == 200)
        #expect(try stats.jsonObject()["misses"] as? Int == 0)
        #expect(replayed.allSatisfy { $0.response.cassetteSource == "hit" && $0.response.statusCode == 200 })
        let recordedBodies = Self.bodiesByTarget(recorded)
        for (target, body) in Self.bodiesByTarget(replayed) where target != Self.sharedTarget {
            #expect(body == recordedBodies[target], "\(target)")
        }
        // 50 requests for 50 recordings: each one served exactly once, none repeated.
        let replayedShared = replayed.filter { $0.target == Self.sharedTarget }.map(\.response.body)
        #expect(Self.sorted(replayedShared) == Self.sorted(sharedBodies))
    }

    static func bodiesByTarget(_ results: [(target: String, response: TransportResponse)]) -> [String: Data] {
        Dictionary(results.map { ($0.target, $0.response.body) }, uniquingKeysWith: { first, _ in first })
    }

    static func sorted(_ bodies: [Data]) -> [Data] {
        bodies.sorted { $0.lexicographicallyPrecedes($1) }
    }
}
