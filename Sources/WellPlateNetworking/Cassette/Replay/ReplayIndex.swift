import Foundation
import HTTPTypes
import Synchronization

/// A cassette held in memory for replay: every lookup is one hash lookup under a lock, so no
/// SQLite call and no I/O ever happens on the request path.
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

    private struct State {
        var entries: [String: Entry] = [:]
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
        var entries = builder.entries
        for slot in entries.values.indices where entries.values[slot].interactions.count > 1 {
            entries.values[slot].interactions.sort { $0.sequence < $1.sequence }
        }
        state = Mutex(State(entries: entries, interactionCount: builder.count))
    }

    /// Collects recordings one at a time, so a store can build the index while it reads rows and
    /// never holds the whole cassette twice.
    struct Builder {
        fileprivate var entries: [String: Entry] = [:]
        fileprivate var count = 0
        private var pool = HeaderPool()

        /// Sizes the table for `count` recordings up front, avoiding rehashing while loading.
        mutating func reserveCapacity(_ count: Int) {
            entries.reserveCapacity(count)
        }

        /// `headersShared`: the caller already shares header sets (`InteractionRowReader`).
        /// Consumes the recording and hashes its key once: this runs for every row of a cassette.
        mutating func add(_ interaction: consuming Interaction, headersShared: Bool = false) {
            var interaction = interaction
            if !headersShared { pool.compact(&interaction) }
            let key = interaction.key
            entries[key, default: Entry(interactions: [])].interactions.append(interaction)
            count += 1
        }
    }

    /// Takes the next recording of `key`, following the sequence policy.
    public func next(for key: String) -> Lookup {
        next(for: key) { $0 }
    }

    /// Takes the next recording of `key` and returns what `read` takes from it, under the lock:
    /// the recording itself is never copied, which matters on a replay proxy's hot path.
    public func next<Value>(for key: String, read: (Interaction) -> Value) -> Selection<Value> {
        state.withLock { state in
            // One hash of the key, and the entry updated in place: this runs for every replayed request.
            guard let slot = state.entries.index(forKey: key) else { return .miss }
            let count = state.entries.values[slot].interactions.count
            guard count > 0 else { return .miss }
            let position = state.entries.values[slot].served
            state.entries.values[slot].served = position + 1
            let chosen: Int
            if position < count {
                chosen = position
            } else {
                switch sequencePolicy {
                case .repeatLast: chosen = count - 1
                case .cycle: chosen = position % count
                case .fail: return .exhausted(count: count)
                }
            }
            state.entries.values[slot].replayed += 1
            return .hit(read(state.entries.values[slot].interactions[chosen]), repeated: position >= count)
        }
    }

    /// The first recording of `key`, without counting it as served.
    public func peek(_ key: String) -> Interaction? {
        state.withLock { $0.entries[key]?.interactions.first }
    }

    /// Whether the key has at least one recording.
    public func contains(_ key: String) -> Bool {
        state.withLock { $0.entries[key]?.interactions.isEmpty == false }
    }

    /// The number of recordings of `key` not yet served (for `missing` mode, which records repeats).
    public func hasUnservedRecording(for key: String) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[key] else { return false }
            return entry.served < entry.interactions.count
        }
    }

    /// Adds a recording made during this session; it counts as served, since the caller got it live.
    public func appendServed(_ interaction: Interaction) {
        state.withLock { state in
            var entry = state.entries[interaction.key] ?? Entry(interactions: [])
            entry.interactions.append(interaction)
            entry.served = max(entry.served, entry.interactions.count)
            state.entries[interaction.key] = entry
            state.interactionCount += 1
        }
    }

    /// Replaces every recording of a key with one served recording (`all` mode's first occurrence).
    public func replaceServed(_ interaction: Interaction) {
        state.withLock { state in
            let removed = state.entries[interaction.key]?.interactions.count ?? 0
            state.entries[interaction.key] = Entry(interactions: [interaction], served: 1, replayed: 0)
            state.interactionCount += 1 - removed
        }
    }

    /// Every recording, for callers that prepare something per recording up front.
    public var allInteractions: [Interaction] {
        state.withLock { state in state.entries.values.flatMap(\.interactions) }
    }

    /// Every stored key, sorted, for miss explanations and listings.
    public var keys: [String] {
        state.withLock { Array($0.entries.keys) }.sorted()
    }

    public var statistics: Statistics {
        state.withLock { state in
            var hits: [String: Int] = [:]
            var unused: [String] = []
            for (key, entry) in state.entries {
                if entry.replayed > 0 { hits[key] = entry.replayed }
                if entry.served == 0 { unused.append(key) }
            }
            return Statistics(hits: hits, unusedKeys: unused.sorted(), keyCount: state.entries.count, interactionCount: state.interactionCount)
        }
    }
}

extension ReplayIndex.Selection: Sendable where Value: Sendable {}

/// Recordings of one API repeat the same header sets (the client's request headers, the server's
/// response headers but for `Content-Length`); sharing one copy of each keeps a large cassette's
/// memory close to its body bytes. `Interaction.response` puts `Content-Length` back.
private struct HeaderPool {
    private var sets: [HTTPFields: HTTPFields] = [:]

    mutating func compact(_ interaction: inout Interaction) {
        interaction.requestHeaders = shared(interaction.requestHeaders)
        var response = interaction.responseHeaders
        if interaction.method != .head, response[.contentLength] == String(interaction.responseBody.count) {
            response[.contentLength] = nil
        }
        interaction.responseHeaders = shared(response)
    }

    private mutating func shared(_ fields: HTTPFields) -> HTTPFields {
        if let existing = sets[fields] { return existing }
        sets[fields] = fields
        return fields
    }
}
