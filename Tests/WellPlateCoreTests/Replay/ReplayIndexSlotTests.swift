import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The replay proxy keeps a key's slot per connection and replays by it: a slot must name the same
/// recordings for the index's whole life and follow the same sequence rules as the key.
@Suite("Replay index slots")
struct ReplayIndexSlotTests {
    func recording(_ target: String, _ body: String, sequence: Int = 0, id: Int64) -> Interaction {
        var interaction = Recordings.make(.get, target, body: Data(body.utf8))
        interaction.sequence = sequence
        interaction.id = id
        return interaction
    }

    func bodies(_ selections: [ReplayIndex.Lookup]) -> [String] {
        selections.map { selection in
            switch selection {
            case .hit(let interaction, _): String(decoding: interaction.responseBody, as: UTF8.self)
            case .exhausted(let count): "exhausted after \(count)"
            case .miss: "miss"
            }
        }
    }

    @Test func aSlotReplaysTheSameSequenceAsItsKey() throws {
        let index = ReplayIndex(
            cassette: "dev",
            interactions: [
                recording("/a", "a2", sequence: 1, id: 2),
                recording("/a", "a1", sequence: 0, id: 1),
                recording("/b", "b1", id: 3),
            ])
        let key = Recordings.make(.get, "/a").key
        let slot = try #require(index.slot(for: key))
        let byKey = index.next(for: key)
        let bySlot = (0..<3).map { _ in index.next(at: slot) { $0 } }
        #expect(bodies([byKey] + bySlot) == ["a1", "a2", "a2", "a2"], "one sequence, whichever way it is asked")
        #expect(index.statistics.hits[key] == 4)
    }

    @Test func aSlotStaysValidWhileRecordingsAreAddedAndReplaced() throws {
        let index = ReplayIndex(cassette: "dev", interactions: [recording("/a", "a1", id: 1)], sequencePolicy: .fail)
        let key = Recordings.make(.get, "/a").key
        let slot = try #require(index.slot(for: key))
        for number in 0..<100 {
            index.appendServed(recording("/new/\(number)", "n", id: Int64(10 + number)))
        }
        #expect(bodies([index.next(at: slot) { $0 }, index.next(at: slot) { $0 }]) == ["a1", "exhausted after 1"])
        index.replaceServed(recording("/a", "a-new", id: 500))
        #expect(index.slot(for: key) == slot)
        #expect(bodies([index.next(at: slot) { $0 }]) == ["exhausted after 1"], "the replacement counts as served")
        #expect(index.statistics.keyCount == 101)
        #expect(index.statistics.interactionCount == 101)
    }

    @Test func aKeyWithoutRecordingsHasNoSlot() {
        let index = ReplayIndex(cassette: "dev", interactions: [recording("/a", "a1", id: 1)])
        #expect(index.slot(for: Recordings.make(.get, "/b").key) == nil)
        #expect(bodies([index.next(for: Recordings.make(.get, "/b").key)]) == ["miss"])
    }
}
