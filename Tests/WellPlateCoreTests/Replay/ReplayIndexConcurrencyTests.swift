import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The index is read from many event loops at once without a lock: each position of a key's
/// sequence must go to exactly one caller, and the counts behind the statistics must add up.
@Suite("Replay index under concurrency")
struct ReplayIndexConcurrencyTests {
    static let keys = 20
    static let recordingsPerKey = 10
    static let threads = 8
    static let requestsPerKeyPerThread = 3

    /// Keys `/k0`... with recordings numbered by id, stored in an interleaved order.
    func index(policy: SequencePolicy) -> ReplayIndex {
        var interactions: [Interaction] = []
        for sequence in 0..<Self.recordingsPerKey {
            for key in 0..<Self.keys {
                var interaction = Recordings.make(.get, "/k\(key)", body: Data("k\(key)-\(sequence)".utf8))
                interaction.sequence = sequence
                interaction.id = Int64(key * 100 + sequence)
                interactions.append(interaction)
            }
        }
        return ReplayIndex(cassette: "dev", interactions: interactions.reversed(), sequencePolicy: policy)
    }

    /// Every thread asks for every key, by slot, `requestsPerKeyPerThread` times; returns the ids
    /// served and the number of refusals.
    func replayConcurrently(_ index: ReplayIndex) throws -> (ids: [Int64], exhausted: Int) {
        let slots = try (0..<Self.keys).map { try #require(index.slot(for: Recordings.make(.get, "/k\($0)").key)) }
        let served = Mutex<(ids: [Int64], exhausted: Int)>(([], 0))
        DispatchQueue.concurrentPerform(iterations: Self.threads) { _ in
            var ids: [Int64] = []
            var exhausted = 0
            for _ in 0..<Self.requestsPerKeyPerThread {
                for slot in slots {
                    switch index.next(at: slot) {
                    case .hit(.loaded(let position), _): ids.append(index.loadedRecording(at: position).id ?? -1)
                    case .hit(.recorded(let interaction), _): ids.append(interaction.id ?? -1)
                    case .exhausted: exhausted += 1
                    case .miss: Issue.record("a loaded key missed")
                    }
                }
            }
            served.withLock {
                $0.ids += ids
                $0.exhausted += exhausted
            }
        }
        return served.withLock { $0 }
    }

    @Test func eachRecordingOfASequenceIsServedExactlyOnce() throws {
        let index = index(policy: .fail)
        let (ids, exhausted) = try replayConcurrently(index)
        let requests = Self.threads * Self.requestsPerKeyPerThread * Self.keys
        #expect(ids.count == Self.keys * Self.recordingsPerKey)
        #expect(Set(ids).count == ids.count, "no recording twice")
        #expect(exhausted == requests - ids.count)
        let statistics = index.statistics
        #expect(statistics.hits.count == Self.keys)
        #expect(statistics.hits.values.allSatisfy { $0 == Self.recordingsPerKey })
        #expect(statistics.unusedKeys.isEmpty)
        #expect(Set(index.replayCountsByRecording.values) == [1])
    }

    @Test func repeatingTheLastRecordingCountsEveryAnswer() throws {
        let index = index(policy: .repeatLast)
        let (ids, exhausted) = try replayConcurrently(index)
        let perKey = Self.threads * Self.requestsPerKeyPerThread
        #expect(exhausted == 0)
        #expect(ids.count == Self.keys * perKey)
        for key in 0..<Self.keys {
            let served = ids.filter { $0 / 100 == Int64(key) }
            #expect(Set(served).count == Self.recordingsPerKey, "every recording of /k\(key) was served")
            #expect(served.filter { $0 == Int64(key * 100 + Self.recordingsPerKey - 1) }.count == perKey - Self.recordingsPerKey + 1)
        }
        #expect(index.statistics.hits.values.allSatisfy { $0 == perKey })
        #expect(index.replayCountsByRecording.values.reduce(0, +) == Self.keys * perKey)
    }

    @Test func recordingsAddedLaterFollowTheLoadedOnesOfTheirKey() throws {
        let index = index(policy: .repeatLast)
        let key = Recordings.make(.get, "/k3").key
        let slot = try #require(index.slot(for: key))
        for _ in 0..<2 { _ = index.next(at: slot) }
        var added = Recordings.make(.get, "/k3", body: Data("live".utf8))
        added.id = 9999
        index.appendServed(added)
        #expect(index.hasUnservedRecording(for: key) == false, "the live recording counts as served")
        guard case .hit(.recorded(let interaction), repeated: true) = index.next(at: slot) else {
            Issue.record("the appended recording is the last of the sequence")
            return
        }
        #expect(interaction.id == 9999)
        #expect(index.statistics.interactionCount == Self.keys * Self.recordingsPerKey + 1)
        #expect(index.statistics.hits[key] == 3)
    }
}
