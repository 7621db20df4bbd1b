import Foundation
import HTTPTypes
import Synchronization

/// A cassette held in memory for replay: every lookup is one hash lookup (or, by slot, none)
/// under a lock, so no SQLite call and no I/O ever happens on the request path.
public final class ReplayIndex: Sendable {
    /// The outcome of asking for the next recording of a key, or for something read from it.
    public enum Selection<Value> {
        /// A recording to serve; `repeated` when the sequence was exhausted and a policy reused one.
        case hit(Value, repeated: Bool)
        /// Every recording of the key was served and the policy says to stop.
        case exhausted(count: Int)
        case miss
    }

    public typealias Lookup = Selection<Interaction>

    /// Hit counts for `/__cassette/stats` and the summary printed on exit.
    public struct Statistics: Sendable, Equatable {
        public var hits: [String: Int]
        public var unusedKeys: [String]
        public var keyCount: Int
        public var interactionCount: Int
    }

    fileprivate struct Entry {
        var interactions: [Interaction]
        /// Position of the next recording to serve (recordings made this session count as served).
        var served = 0
        /// Answers served from the cassette, for statistics.
        var replayed = 0
    }

    /// Where a key's recordings sit in the index. Slots never move or disappear, so a caller that
    /// asks for the same key again and again (the proxy, per connection) keeps the slot and skips
    /// hashing the key.
    public struct Slot: Sendable, Hashable {
        fileprivate let position: Int
    }

    /// Entries by slot position, and slot positions by key: one table with stable positions.
    fileprivate struct Table {
        var positions: [String: Int] = [:]
        var entries: [Entry] = []

        /// The entry of `key`, created empty when absent; one hash either way.
        mutating func withEntry<Result>(_ key: String, _ body: (inout Entry) -> Result) -> Result {
            let position = Self.settle(&positions[key, default: entries.count])
            if position == entries.count { entries.append(Entry(interactions: [])) }
            return body(&entries[position])
        }

        private static func settle(_ position: inout Int) -> Int { position }

        func entry(_ key: String) -> Entry? {
            positions[key].map { entries[$0] }
        }
    }

    private struct State {
        var table = Table()
        var interactionCount = 0
    }

    public let cassette: String
    public let sequencePolicy: SequencePolicy
    private let state: Mutex<State>

    /// `interactions` in any order; they are grouped by key and ordered by sequence.
    public convenience init(cassette: String, interactions: [Interaction], sequencePolicy: SequencePolicy = .repeatLast) {
        var builder = Builder()
        for interaction in interactions { builder.add(interaction) }
        self.init(cassette: cassette, sequencePolicy: sequencePolicy, builder: builder)
    }

    init(cassette: String, sequencePolicy: SequencePolicy, builder: Builder) {
        self.cassette = cassette
        self.sequencePolicy = sequencePolicy
        var table = builder.table
        for position in table.entries.indices where table.entries[position].interactions.count > 1 {
            table.entries[position].interactions.sort { $0.sequence < $1.sequence }
        }
        state = Mutex(State(table: table, interactionCount: builder.count))
    }

    /// Collects recordings one at a time, so a store can build the index while it reads rows and
    /// never holds the whole cassette twice.
    struct Builder {
        fileprivate var table = Table()
        fileprivate var count = 0
        private var pool = HeaderPool()

        /// Sizes the table for `count` recordings up front, avoiding rehashing while loading.
        mutating func reserveCapacity(_ count: Int) {
            table.positions.reserveCapacity(count)
            table.entries.reserveCapacity(count)
        }

        /// `headersShared`: the caller already shares header sets (`InteractionRowReader`).
        /// Consumes the recording and hashes its key once: this runs for every row of a cassette.
        mutating func add(_ interaction: consuming Interaction, headersShared: Bool = false) {
            var interaction = interaction
            if !headersShared { pool.compact(&interaction) }
            let key = interaction.key
            table.withEntry(key) { $0.interactions.append(interaction) }
            count += 1
        }
    }

    /// The slot of `key`, or `nil` while it has no recordings.
    public func slot(for key: String) -> Slot? {
        state.withLock { $0.table.positions[key].map(Slot.init) }
    }

    /// Takes the next recording of `key`, following the sequence policy.
    public func next(for key: String) -> Lookup {
        next(for: key) { $0 }
    }

    /// Takes the next recording of `key` and returns what `read` takes from it, under the lock:
    /// the recording itself is never copied, which matters on a replay proxy's hot path.
    public func next<Value: Sendable>(for key: String, read: (Interaction) -> Value) -> Selection<Value> {
        state.withLock { state in
            guard let position = state.table.positions[key] else { return .miss }
            return Self.take(&state.table.entries[position], policy: sequencePolicy, read: read)
        }
    }

    /// `next(for:read:)` by a slot from `slot(for:)`, without hashing the key.
    public func next<Value: Sendable>(at slot: Slot, read: (Interaction) -> Value) -> Selection<Value> {
        state.withLock { state in
            Self.take(&state.table.entries[slot.position], policy: sequencePolicy, read: read)
        }
    }

    private static func take<Value>(_ entry: inout Entry, policy: SequencePolicy, read: (Interaction) -> Value) -> Selection<Value> {
        let count = entry.interactions.count
        guard count > 0 else { return .miss }
        let position = entry.served
        entry.served = position + 1
        let chosen: Int
        if position < count {
            chosen = position
        } else {
            switch policy {
            case .repeatLast: chosen = count - 1
            case .cycle: chosen = position % count
            case .fail: return .exhausted(count: count)
            }
        }
        entry.replayed += 1
        return .hit(read(entry.interactions[chosen]), repeated: position >= count)
    }

    /// The first recording of `key`, without counting it as served.
    public func peek(_ key: String) -> Interaction? {
        state.withLock { $0.table.entry(key)?.interactions.first }
    }

    /// Whether the key has at least one recording.
    public func contains(_ key: String) -> Bool {
        state.withLock { $0.table.entry(key)?.interactions.isEmpty == false }
    }

    /// Whether `key` has a recording not yet served (for `missing` mode, which records repeats).
    public func hasUnservedRecording(for key: String) -> Bool {
        state.withLock { state in
            guard let entry = state.table.entry(key) else { return false }
            return entry.served < entry.interactions.count
        }
    }

    /// Adds a recording made during this session; it counts as served, since the caller got it live.
    public func appendServed(_ interaction: Interaction) {
        state.withLock { state in
            state.table.withEntry(interaction.key) { entry in
                entry.interactions.append(interaction)
                entry.served = max(entry.served, entry.interactions.count)
            }
            state.interactionCount += 1
        }
    }

    /// Replaces every recording of a key with one served recording (`all` mode's first occurrence).
    public func replaceServed(_ interaction: Interaction) {
        state.withLock { state in
            let removed = state.table.withEntry(interaction.key) { entry in
                let removed = entry.interactions.count
                entry = Entry(interactions: [interaction], served: 1, replayed: 0)
                return removed
            }
            state.interactionCount += 1 - removed
        }
    }

    /// Swaps every stored response body for what `share` returns, which must hold the same bytes:
    /// a caller that keeps each body in a form of its own (the replay proxy's prepared buffers)
    /// hands back a view of its copy, so the bytes are held once.
    public func shareResponseBodies(_ share: (Interaction) -> Data) {
        state.withLock { state in
            for position in state.table.entries.indices {
                for item in state.table.entries[position].interactions.indices {
                    let body = share(state.table.entries[position].interactions[item])
                    state.table.entries[position].interactions[item].responseBody = body
                }
            }
        }
    }

    /// Calls `body` with every recording, under the lock and without copying them out.
    public func forEachInteraction(_ body: (Interaction) -> Void) {
        state.withLock { state in
            for entry in state.table.entries {
                entry.interactions.forEach(body)
            }
        }
    }

    /// Every key with recordings, sorted, for miss explanations and listings.
    public var keys: [String] {
        state.withLock { state in state.table.positions.compactMap { key, position in state.table.entries[position].interactions.isEmpty ? nil : key } }.sorted()
    }

    public var statistics: Statistics {
        state.withLock { state in
            var hits: [String: Int] = [:]
            var unused: [String] = []
            var keyCount = 0
            for (key, position) in state.table.positions {
                let entry = state.table.entries[position]
                guard !entry.interactions.isEmpty else { continue }
                keyCount += 1
                if entry.replayed > 0 { hits[key] = entry.replayed }
                if entry.served == 0 { unused.append(key) }
            }
            return Statistics(hits: hits, unusedKeys: unused.sorted(), keyCount: keyCount, interactionCount: state.interactionCount)
        }
    }
}

extension ReplayIndex.Selection: Sendable where Value: Sendable {}
