import Foundation
import HTTPTypes
import Synchronization

/// A cassette held in memory for replay: every lookup is one hash lookup (or, by slot, none), so
/// no SQLite call and no I/O ever happens on the request path.
///
/// How concurrent readers see it: the recordings loaded at start-up (`loaded`) never change after
/// `init`, so any thread reads them without synchronization. Each loaded slot's sequence position
/// and hit count are atomics (`SlotCounters`): taking the next recording is one atomic add, which
/// hands every position to exactly one caller. Recordings made during the session live apart, in
/// `additions` under a mutex, and `hasAdditions` tells lookups when they must look there. A
/// replay-only session never records, so its lookups take no lock at all, from any number of
/// threads.
package final class ReplayIndex: Sendable {
    /// The outcome of asking for the next recording of a key, or for something read from it.
    package enum Selection<Value> {
        /// A recording to serve; `repeated` when the sequence was exhausted and a policy reused one.
        case hit(Value, repeated: Bool)
        /// Every recording of the key was served and the policy says to stop.
        case exhausted(count: Int)
        case miss
    }

    package typealias Lookup = Selection<Interaction>

    /// The recording a lookup chose: one loaded at start-up, by its position in the index (the
    /// position a caller's prepared answers share, `CassetteSession.open(store:options:upstream:preparing:)`),
    /// or one recorded during this session.
    package enum Pick: Sendable {
        case loaded(Int)
        case recorded(Interaction)
    }

    /// Hit counts for `/__cassette/stats` and the summary printed on exit.
    package struct Statistics: Sendable, Equatable {
        package var hits: [String: Int]
        package var unusedKeys: [String]
        package var keyCount: Int
        package var interactionCount: Int
    }

    /// Where a key's recordings sit in the index. Slots never move or disappear, so a caller that
    /// asks for the same key again and again (the proxy, per connection) keeps the slot and skips
    /// hashing the key.
    package struct Slot: Sendable, Hashable {
        fileprivate let position: Int
    }

    package let cassette: String
    package let sequencePolicy: SequencePolicy
    private let loaded: LoadedRecordings
    private let counters: SlotCounters
    private let additions = Mutex(Additions())
    /// Set, with release ordering while `additions` is locked, by the first recording added.
    private let hasAdditions = Atomic(false)
    /// Set, likewise, by the first hash-only alias added during the session (`Additions.aliases`):
    /// until then no lookup takes the lock to look for one.
    private let hasAddedAliases = Atomic(false)

    /// `interactions` in any order; they are grouped by key and ordered by sequence.
    package convenience init(cassette: String, interactions: [Interaction], sequencePolicy: SequencePolicy = .repeatLast) {
        var builder = Builder()
        for interaction in interactions { builder.add(interaction) }
        self.init(cassette: cassette, sequencePolicy: sequencePolicy, loaded: builder.build())
    }

    init(cassette: String, sequencePolicy: SequencePolicy, loaded: LoadedRecordings) {
        self.cassette = cassette
        self.sequencePolicy = sequencePolicy
        self.loaded = loaded
        counters = SlotCounters(count: loaded.slotCount)
    }

    /// The slot of `key`, or `nil` while it has no recordings.
    package func slot(for key: String) -> Slot? {
        if !loaded.aliases.isEmpty, let position = loaded.aliases[key] { return Slot(position: position) }
        // Before the loaded keys: a hash-only key loaded with only `PersistedQueryNotFound` gives
        // way to the document recorded during this session.
        if hasAddedAliases.load(ordering: .acquiring), let position = additions.withLock({ $0.aliases[key] }) {
            return Slot(position: position)
        }
        if let position = loaded.positions[key] { return Slot(position: position) }
        guard hasAdditions.load(ordering: .acquiring) else { return nil }
        return additions.withLock { $0.newPositions[key].map { Slot(position: loaded.slotCount + $0) } }
    }

    /// Takes the next recording at `slot`, following the sequence policy. A lookup that races
    /// the session's first recording may still take the lock-free path: it is then ordered before
    /// that recording, as if it had come a moment earlier.
    package func next(at slot: Slot) -> Selection<Pick> {
        if slot.position < loaded.slotCount, !hasAdditions.load(ordering: .acquiring) {
            return takeLoaded(slot.position, replacing: false, added: [])
        }
        return additions.withLock { take(slot.position, in: &$0) }
    }

    /// Takes the next recording of `key`, following the sequence policy.
    package func next(for key: String) -> Lookup {
        next(for: key) { $0 }
    }

    /// Takes the next recording of `key` and returns what `read` takes from it.
    package func next<Value: Sendable>(for key: String, read: (Interaction) -> Value) -> Selection<Value> {
        guard let slot = slot(for: key) else { return .miss }
        return next(at: slot, read: read)
    }

    /// `next(for:read:)` by a slot from `slot(for:)`, without hashing the key.
    package func next<Value: Sendable>(at slot: Slot, read: (Interaction) -> Value) -> Selection<Value> {
        switch next(at: slot) {
        case .hit(.loaded(let position), let repeated): .hit(read(loaded.recordings[position]), repeated: repeated)
        case .hit(.recorded(let interaction), let repeated): .hit(read(interaction), repeated: repeated)
        case .exhausted(let count): .exhausted(count: count)
        case .miss: .miss
        }
    }

    /// Whether every key loaded at start-up is ASCII, with no percent-encoded byte above 0x7F:
    /// then no request whose head is not UTF-8 can match one, however its bytes are read (the
    /// replay proxy then keeps no raw request-head bytes).
    package var loadedKeysAreASCII: Bool {
        loaded.keysAreASCII
    }

    /// The recording loaded at `position` (from `Pick.loaded`).
    package func loadedRecording(at position: Int) -> Interaction {
        loaded.recordings[position]
    }

    /// Whether the loaded recording at `position` echoed secrets of its request: asked for every
    /// replayed request that carries a secret, so it reads the one field, not the recording.
    package func loadedRecordingEchoesSecrets(at position: Int) -> Bool {
        !loaded.recordings[position].secretEchoes.isEmpty
    }

    /// The position in `loaded.slotRanges[slot]` to serve, by the slot's atomic counters; the
    /// sequence is the loaded recordings (unless `replacing`) followed by `added`.
    private func takeLoaded(_ slot: Int, replacing: Bool, added: [Interaction]) -> Selection<Pick> {
        let range = replacing ? 0..<0 : loaded.range(of: slot)
        let count = range.count + added.count
        guard count > 0 else { return .miss }
        let position = counters.takePosition(slot)
        guard let chosen = Self.choose(position: position, count: count, policy: sequencePolicy) else { return .exhausted(count: count) }
        counters.countReplayed(slot)
        let pick: Pick = chosen < range.count ? .loaded(range.lowerBound + chosen) : .recorded(added[chosen - range.count])
        return .hit(pick, repeated: position >= count)
    }

    private func take(_ slot: Int, in additions: inout Additions) -> Selection<Pick> {
        if slot < loaded.slotCount {
            let entry = additions.toLoadedSlots[slot]
            return takeLoaded(slot, replacing: entry?.replacesLoaded ?? false, added: entry?.recordings ?? [])
        }
        return additions.newEntries[slot - loaded.slotCount].take(policy: sequencePolicy)
    }

    /// Which recording serves the `position`th request for a key of `count` recordings; `nil`
    /// when the sequence is exhausted and the policy says to stop.
    static func choose(position: Int, count: Int, policy: SequencePolicy) -> Int? {
        if position < count { return position }
        switch policy {
        case .repeatLast: return count - 1
        case .cycle: return position % count
        case .fail: return nil
        }
    }

    /// The recordings of `slot` in sequence order, as `next` would serve them.
    private func recordings(of slot: Int, _ additions: Additions) -> [Interaction] {
        if slot >= loaded.slotCount { return additions.newEntries[slot - loaded.slotCount].recordings }
        let entry = additions.toLoadedSlots[slot]
        let loadedOnes = entry?.replacesLoaded == true ? [] : Array(loaded.recordings[loaded.range(of: slot)])
        return loadedOnes + (entry?.recordings ?? [])
    }

    private func recordingCount(of slot: Int, _ additions: Additions) -> Int {
        if slot >= loaded.slotCount { return additions.newEntries[slot - loaded.slotCount].recordings.count }
        let entry = additions.toLoadedSlots[slot]
        return (entry?.replacesLoaded == true ? 0 : loaded.range(of: slot).count) + (entry?.recordings.count ?? 0)
    }

    /// Served position and replay count of a slot.
    private func counts(of slot: Int, _ additions: Additions) -> (served: Int, replayed: Int) {
        if slot >= loaded.slotCount {
            let entry = additions.newEntries[slot - loaded.slotCount]
            return (entry.served, entry.replayed)
        }
        return (counters.served(slot), counters.replayed(slot))
    }

    /// Reads under the lock only once something was added: until then there is nothing to guard.
    private func reading<Result>(_ body: (Additions) -> Result) -> Result {
        guard hasAdditions.load(ordering: .acquiring) else { return body(Additions()) }
        return additions.withLock { body($0) }
    }

    /// The first recording of `key`, without counting it as served.
    package func peek(_ key: String) -> Interaction? {
        guard let slot = slot(for: key) else { return nil }
        return reading { recordings(of: slot.position, $0).first }
    }

    /// Whether the key has at least one recording.
    package func contains(_ key: String) -> Bool {
        guard let slot = slot(for: key) else { return false }
        return reading { recordingCount(of: slot.position, $0) > 0 }
    }

    /// Whether `key` has a recording not yet served (for `missing` mode, which records repeats).
    package func hasUnservedRecording(for key: String) -> Bool {
        guard let slot = slot(for: key) else { return false }
        return reading { counts(of: slot.position, $0).served < recordingCount(of: slot.position, $0) }
    }

    /// Adds a recording made during this session; it counts as served, since the caller got it live.
    /// `alias`: the key the same request has sent by its persisted-query hash alone, which then
    /// leads to this recording's slot (as `LoadedRecordings.addGraphQLAliases` does at start-up).
    package func appendServed(_ interaction: Interaction, alias: String? = nil) {
        additions.withLock { additions in
            defer { if let alias { addAlias(alias, to: interaction.key, in: &additions) } }
            hasAdditions.store(true, ordering: .releasing)
            if let slot = loaded.positions[interaction.key] {
                additions.toLoadedSlots[slot, default: Additions.Entry()].recordings.append(interaction)
                counters.raiseServed(slot, to: recordingCount(of: slot, additions))
            } else {
                additions.withNewEntry(interaction.key) { entry in
                    entry.recordings.append(interaction)
                    entry.served = max(entry.served, entry.recordings.count)
                }
            }
            additions.countChange += 1
        }
    }

    /// Replaces every recording of a key with one served recording (`all` mode's first occurrence);
    /// `alias` as for `appendServed(_:alias:)`.
    package func replaceServed(_ interaction: Interaction, alias: String? = nil) {
        additions.withLock { additions in
            defer { if let alias { addAlias(alias, to: interaction.key, in: &additions) } }
            hasAdditions.store(true, ordering: .releasing)
            let removed: Int
            if let slot = loaded.positions[interaction.key] {
                removed = recordingCount(of: slot, additions)
                additions.toLoadedSlots[slot] = Additions.Entry(replacesLoaded: true, recordings: [interaction])
                counters.reset(slot, served: 1)
            } else {
                removed = additions.withNewEntry(interaction.key) { entry in
                    let removed = entry.recordings.count
                    entry = Additions.Entry(recordings: [interaction], served: 1)
                    return removed
                }
            }
            additions.countChange += 1 - removed
        }
    }

    /// Leads `alias` (a hash-only key) to `key`'s slot, unless the alias already leads somewhere
    /// or has answers of its own that are not `PersistedQueryNotFound` (the rule of start-up).
    private func addAlias(_ alias: String, to key: String, in additions: inout Additions) {
        guard alias != key, loaded.aliases[alias] == nil, additions.aliases[alias] == nil,
            let target = loaded.positions[key] ?? additions.newPositions[key].map({ loaded.slotCount + $0 })
        else { return }
        let own = loaded.positions[alias] ?? additions.newPositions[alias].map { loaded.slotCount + $0 }
        if let own, !recordings(of: own, additions).allSatisfy(\.isPersistedQueryNotFound) { return }
        additions.aliases[alias] = target
        hasAddedAliases.store(true, ordering: .releasing)
    }

    /// Starts every key's sequence again, as if nothing had been served: recordings made during
    /// the session stay and are served in turn after the loaded ones (a proxy session's reset).
    /// Under the additions lock, so no recording is added halfway through; a lookup racing the
    /// reset on the lock-free path is ordered before it.
    package func restartSequences() {
        additions.withLock { additions in
            for slot in 0..<loaded.slotCount { counters.reset(slot, served: 0) }
            for position in additions.newEntries.indices {
                additions.newEntries[position].served = 0
                additions.newEntries[position].replayed = 0
            }
        }
    }

    /// Every key with recordings, sorted, for miss explanations and listings.
    package var keys: [String] {
        reading { additions in
            (Array(loaded.positions.keys) + Array(additions.newPositions.keys)).sorted()
        }
    }

    /// Recordings in the index, without building the statistics (which list and sort every key).
    package var interactionCount: Int {
        reading { loaded.recordings.count + $0.countChange }
    }

    package var statistics: Statistics {
        reading { additions in
            var hits: [String: Int] = [:]
            var unused: [String] = []
            func count(_ key: String, _ slot: Int) {
                let (served, replayed) = counts(of: slot, additions)
                if replayed > 0 { hits[key] = replayed }
                if served == 0 { unused.append(key) }
            }
            for (key, slot) in loaded.positions { count(key, slot) }
            for (key, entry) in additions.newPositions { count(key, loaded.slotCount + entry) }
            return Statistics(
                hits: hits, unusedKeys: unused.sorted(),
                keyCount: loaded.slotCount + additions.newEntries.count,
                interactionCount: loaded.recordings.count + additions.countChange
            )
        }
    }

    /// The answers each stored recording gave, by row id, for remembering usage
    /// (`CassetteStore.addUsage`). Derived from each key's replay count and the sequence policy
    /// once, when asked, so the replay path counts nothing extra.
    package var replayCountsByRecording: [Int64: Int] {
        reading { additions in
            var counts: [Int64: Int] = [:]
            for slot in 0..<(loaded.slotCount + additions.newEntries.count) {
                let replayed = self.counts(of: slot, additions).replayed
                guard replayed > 0 else { continue }
                let ids = recordings(of: slot, additions).map(\.id)
                let first = min(replayed, ids.count)
                for position in 0..<first { if let id = ids[position] { counts[id, default: 0] += 1 } }
                let extra = replayed - first
                guard extra > 0, !ids.isEmpty else { continue }
                switch sequencePolicy {
                case .repeatLast, .fail:
                    if let id = ids[ids.count - 1] { counts[id, default: 0] += extra }
                case .cycle:
                    for (position, id) in ids.enumerated() {
                        guard let id else { continue }
                        let share = extra / ids.count + (position < extra % ids.count ? 1 : 0)
                        if share > 0 { counts[id, default: 0] += share }
                    }
                }
            }
            return counts
        }
    }
}

extension ReplayIndex.Selection: Sendable where Value: Sendable {}

extension ReplayIndex: RecordingLookup {
    package func isRecorded(_ key: String) -> Bool { contains(key) }
    package func hasUnservedRecording(_ key: String) -> Bool { hasUnservedRecording(for: key) }
}
