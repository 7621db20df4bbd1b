import CassetteKernel
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import WellPlateCore
import WellPlateNetworking

/// What one session served, request by request (`GET /__cassette/sessions/ID/requests`): each
/// answer goes in as the writer sends it, before its first byte leaves, so a client that has its
/// answer finds it here. Targets are redacted like every log line.
///
/// Each event loop writes to a shard of its own (the request log's shard numbers), so the loops
/// of one busy session never contend for a lock or a cache line; reads merge the shards by
/// arrival. The entries are bounded (`limit`): a session driven far harder than a test drives one
/// drops its oldest entries (and says how many), while the tallies the summary is made of keep
/// counting every request.
package final class SessionJournal: AnswerJournal {
    /// How a request was answered, as the journal spells it.
    package enum Source: String, Sendable {
        case hit, recorded, miss, passthrough, error
    }

    package struct Entry: Sendable {
        package let method: String
        /// `scheme://host[:port]` of the upstream on a multi-host or forward proxy; `nil` on one
        /// with a single upstream.
        package var origin: String? = nil
        /// Path and query, redacted.
        package let target: String
        /// `nil` for a request refused before it had one (an unsupported method, a bad target).
        package let key: String?
        package let status: Int
        package let source: Source
        /// When the request was complete, for ordering: entries go in as answers go out.
        package let arrived: NIODeadline
        package let duration: TimeAmount
        /// Its place among the session's requests with the same key, from 0; set as the journal is read.
        package var position: Int?
        /// A WebSocket conversation (its handshake answered `101`), as it goes on.
        package var webSocket: JournalConversation? = nil
        /// A gRPC call, as it ended.
        package var grpc: GRPCCall? = nil

        package var path: Substring { target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
        package var query: Substring? {
            guard let mark = target.firstIndex(of: "?") else { return nil }
            return target[target.index(after: mark)...]
        }
    }

    /// Every request's share of the summary, kept whatever the entries drop.
    package struct Tally: Sendable {
        package var served = 0
        package var recorded = 0
        package var missed: [SessionSummary.Missed] = []
        package var missedPositions: [String: Int] = [:]
    }

    private struct State {
        /// A ring once full: `next` is where the next entry goes, over the oldest.
        package var entries: [Entry] = []
        package var next = 0
        package var dropped = 0
        /// Requests per key among the dropped entries: where the kept ones' positions start.
        package var droppedPerKey: [String: Int] = [:]
        package var tally = Tally()
        /// `NIODeadline` nanoseconds of the shard's last request or control call.
        package var lastActivity: UInt64

        /// The entries, oldest first.
        package var inOrder: [Entry] {
            dropped == 0 ? entries : Array(entries[next...] + entries[..<next])
        }
    }

    /// A class per shard, so each lock lives in an allocation of its own.
    private final class Shard: Sendable {
        package let state: Mutex<State>

        package init(now: UInt64) {
            state = Mutex(State(lastActivity: now))
        }
    }

    /// Entries kept per shard.
    package let limit: Int
    private let shards: [Shard]
    /// The wall clock and the uptime clock at one moment, so an entry's time of day is worked out
    /// when it is read rather than asked of the clock for every request.
    private let origin = (date: Date(), deadline: NIODeadline.now())

    /// `limit` entries kept in all; `shards`: one per event loop plus shard 0, for answers
    /// written elsewhere.
    package init(limit: Int = 100_000, shards: Int = 1) {
        let now = NIODeadline.now().uptimeNanoseconds
        self.shards = (0..<max(1, shards)).map { _ in Shard(now: now) }
        self.limit = max(1, limit / self.shards.count)
    }

    /// Adds the answer to one request, in `shard` (the connection's event loop's); the proxy's own
    /// endpoint answers are not requests of the app under test and stay out.
    package func add(
        method: NIOHTTP1.HTTPMethod, origin: String? = nil, target: String, key: String?, answer: ProxyAnswer, started: NIODeadline, shard: Int = 0
    ) {
        let source: Source
        switch answer.source {
        case .replayed: source = .hit
        case .recorded: source = .recorded
        case .passthrough: source = .passthrough
        case .miss, .stale: source = .miss
        case .error: source = .error
        case .endpoint: return
        }
        let now = NIODeadline.now()
        let entry = Entry(
            method: method.rawValue, origin: origin, target: target, key: key, status: answer.statusCode, source: source, arrived: started,
            duration: now - started)
        append(entry, shard: shard, now: now) { $0.count(source, key: key, method: method, target: target, answer: answer, arrived: started) }
    }

    /// Adds a WebSocket conversation whose handshake was answered `101` as `source` (`hit`,
    /// `recorded` or `passthrough`); its entry shows `conversation` as it goes on.
    package func addConversation(
        _ conversation: JournalConversation, origin: String?, target: String, key: String?, source: Source, started: NIODeadline, shard: Int = 0
    ) {
        let now = NIODeadline.now()
        var entry = Entry(method: "GET", origin: origin, target: target, key: key, status: 101, source: source, arrived: started, duration: now - started)
        entry.webSocket = conversation
        append(entry, shard: shard, now: now) { tally in
            tally.served += 1
            if source == .recorded { tally.recorded += 1 }
        }
    }

    /// A gRPC call as the journal shows it: its method's path, its `grpc-status` by name, its
    /// `grpc-message`.
    package struct GRPCCall: Sendable, Equatable {
        package let method: String
        package let status: String
        package let message: String?

        package init(method: String, status: String, message: String?) {
            self.method = method
            self.status = status
            self.message = message
        }
    }

    /// Adds a gRPC call that ended (HTTP 200 whatever its status) as `source`: `hit` (replayed),
    /// `recorded`, `passthrough`, `miss` (no recording answered it) or `error` (bad input).
    /// A miss counts for the summary and `?strict=true`, with the `grpc-message` saying why.
    package func addGRPCCall(_ call: GRPCCall, origin: String?, key: String, source: Source, started: NIODeadline, shard: Int = 0) {
        let now = NIODeadline.now()
        var entry = Entry(method: "POST", origin: origin, target: call.method, key: key, status: 200, source: source, arrived: started, duration: now - started)
        entry.grpc = call
        append(entry, shard: shard, now: now) { tally in
            switch source {
            case .hit, .passthrough: tally.served += 1
            case .recorded:
                tally.served += 1
                tally.recorded += 1
            case .miss:
                tally.countMiss(key: key, message: "gRPC \(call.status): \(call.message ?? "no recording of \(call.method)")", nearest: [], arrived: started)
            case .error: break
            }
        }
    }

    /// Counts a conversation's client message that was not the recorded one as a miss of `key`
    /// (the summary and `?strict=true` list it), `message` saying what was expected.
    package func countConversationMiss(key: String, message: String, arrived: NIODeadline) {
        shards[0].state.withLock { $0.tally.countMiss(key: key, message: message, nearest: [], arrived: arrived) }
    }

    private func append(_ entry: Entry, shard: Int, now: NIODeadline, count: (inout Tally) -> Void) {
        let limit = limit
        shards[shards.indices.contains(shard) ? shard : 0].state.withLock { state in
            count(&state.tally)
            state.lastActivity = now.uptimeNanoseconds
            if state.entries.count < limit {
                state.entries.append(entry)
                return
            }
            if let key = state.entries[state.next].key { state.droppedPerKey[key, default: 0] += 1 }
            state.entries[state.next] = entry
            state.next = (state.next + 1) % limit
            state.dropped += 1
        }
    }

    /// The kept entries in arrival order with their positions, and how many older ones were dropped.
    package var entries: (entries: [Entry], dropped: Int) {
        var entries: [Entry] = []
        var dropped = 0
        var positions: [String: Int] = [:]
        for shard in shards {
            shard.state.withLock { state in
                entries += state.inOrder
                dropped += state.dropped
                positions.merge(state.droppedPerKey, uniquingKeysWith: +)
            }
        }
        // Answers can go out in another order than their requests came (a slow upstream, latency).
        entries.sort { $0.arrived < $1.arrived }
        for index in entries.indices {
            guard let key = entries[index].key else { continue }
            let position = positions[key, default: 0]
            entries[index].position = position
            positions[key] = position + 1
        }
        return (entries, dropped)
    }

    /// The summary's counts over every request.
    package var tally: Tally {
        var merged = Tally()
        for shard in shards { merged.merge(shard.state.withLock { $0.tally }) }
        return merged
    }

    /// Requests answered, dropped entries included.
    package var count: Int {
        shards.reduce(0) { total, shard in total + shard.state.withLock { $0.entries.count + $0.dropped } }
    }

    /// When an entry's request arrived, by the wall clock.
    package func date(of entry: Entry) -> Date {
        origin.date.addingTimeInterval(Double((entry.arrived - origin.deadline).nanoseconds) / 1e9)
    }

    /// Empties the journal and its tallies (`POST /__cassette/sessions/ID/reset`).
    package func clear() {
        let now = NIODeadline.now().uptimeNanoseconds
        for shard in shards { shard.state.withLock { $0 = State(lastActivity: now) } }
    }

    /// Counts as activity: a control call on the session.
    package func touch() {
        let now = NIODeadline.now().uptimeNanoseconds
        shards[0].state.withLock { $0.lastActivity = now }
    }

    /// How long the session has gone without a request or a control call.
    package var idleTime: TimeAmount {
        let last = shards.map { shard in shard.state.withLock { $0.lastActivity } }.max() ?? 0
        return .nanoseconds(Int64(NIODeadline.now().uptimeNanoseconds) - Int64(last))
    }
}

extension SessionJournal.Tally {
    /// One answered request's share: served and recorded counts, and each missed key once, with
    /// what came nearest.
    package mutating func count(
        _ source: SessionJournal.Source, key: String?, method: NIOHTTP1.HTTPMethod, target: String, answer: ProxyAnswer, arrived: NIODeadline
    ) {
        switch source {
        case .hit, .passthrough: served += 1
        case .recorded:
            served += 1
            recorded += 1
        case .error: break
        case .miss:
            let missedKey = key ?? "\(method.rawValue) \(target)"
            let message =
                answer.miss?.miss.summary
                ?? (answer.source == .stale
                    ? "The recording of \(missedKey) is older than --max-age, and --stale fail refuses it" : "No recording of \(missedKey)")
            countMiss(key: missedKey, message: message, nearest: answer.miss?.miss.nearest ?? [], arrived: arrived)
        }
    }

    /// One miss of `key`; each key is listed once, with the message of its first miss.
    package mutating func countMiss(key: String, message: @autoclosure () -> String, nearest: @autoclosure () -> [KeyDifference], arrived: NIODeadline) {
        if let position = missedPositions[key] {
            missed[position].count += 1
            missed[position].firstArrived = min(missed[position].firstArrived, arrived)
            return
        }
        missedPositions[key] = missed.count
        missed.append(SessionSummary.Missed(key: key, count: 1, message: message(), nearest: nearest(), firstArrived: arrived))
    }

    /// Adds another shard's tally; missed keys stay in the order they first missed.
    package mutating func merge(_ other: Self) {
        served += other.served
        recorded += other.recorded
        for missed in other.missed {
            if let position = missedPositions[missed.key] {
                self.missed[position].count += missed.count
                self.missed[position].firstArrived = min(self.missed[position].firstArrived, missed.firstArrived)
            } else {
                missedPositions[missed.key] = self.missed.count
                self.missed.append(missed)
            }
        }
        self.missed.sort { $0.firstArrived < $1.firstArrived }
        missedPositions = Dictionary(uniqueKeysWithValues: self.missed.enumerated().map { ($1.key, $0) })
    }
}
