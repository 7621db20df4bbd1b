import CassetteTools
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
/// The entries are bounded (`limit`): a session driven far harder than a test drives one drops
/// its oldest entries (and says how many), while the tallies the summary is made of (counts,
/// misses, positions per key) keep counting every request.
final class SessionJournal: Sendable {
    /// How a request was answered, as the journal spells it.
    enum Source: String, Sendable {
        case hit, recorded, miss, passthrough, error
    }

    struct Entry: Sendable {
        let method: String
        /// Path and query, redacted.
        let target: String
        /// `nil` for a request refused before it had one (an unsupported method, a bad target).
        let key: String?
        let status: Int
        let source: Source
        /// Its place among the session's requests with the same key, from 0.
        let position: Int?
        /// When the request was complete, for ordering: entries go in as answers go out.
        let arrived: NIODeadline
        let duration: TimeAmount

        var path: Substring { target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
        var query: Substring? {
            guard let mark = target.firstIndex(of: "?") else { return nil }
            return target[target.index(after: mark)...]
        }
    }

    /// Every request's share of the summary, kept whatever the entries drop.
    struct Tally: Sendable {
        var served = 0
        var recorded = 0
        var missed: [SessionSummary.Missed] = []
        var missedPositions: [String: Int] = [:]
        /// Requests so far per key: the next one's position.
        var positions: [String: Int] = [:]
    }

    private struct State {
        /// A ring once full: `next` is where the next entry goes, over the oldest.
        var entries: [Entry] = []
        var next = 0
        var dropped = 0
        var tally = Tally()

        /// The entries, oldest first.
        var inOrder: [Entry] {
            dropped == 0 ? entries : Array(entries[next...] + entries[..<next])
        }
    }

    /// Entries kept per session.
    let limit: Int
    private let state = Mutex(State())
    /// `NIODeadline` nanoseconds of the last request or control call (`SessionRegistry` closes
    /// sessions idle for too long).
    private let lastActivity = Atomic<UInt64>(NIODeadline.now().uptimeNanoseconds)
    /// The wall clock and the uptime clock at one moment, so an entry's time of day is worked out
    /// when it is read rather than asked of the clock for every request.
    private let origin = (date: Date(), deadline: NIODeadline.now())

    init(limit: Int = 100_000) {
        self.limit = max(1, limit)
    }

    /// Adds the answer to one request; the proxy's own endpoint answers are not requests of the
    /// app under test and stay out.
    func add(method: NIOHTTP1.HTTPMethod, target: String, key: String?, answer: ProxyAnswer, started: NIODeadline) {
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
        let status = answer.statusCode
        state.withLock { state in
            var position: Int?
            if let key {
                // One hash for a key seen before, which nearly every request's is.
                if let index = state.tally.positions.index(forKey: key) {
                    position = state.tally.positions.values[index]
                    state.tally.positions.values[index] += 1
                } else {
                    position = 0
                    state.tally.positions[key] = 1
                }
            }
            state.tally.count(source, key: key, method: method, target: target, answer: answer)
            let entry = Entry(
                method: method.rawValue, target: target, key: key, status: status, source: source, position: position, arrived: started,
                duration: now - started)
            if state.entries.count < limit {
                state.entries.append(entry)
            } else {
                state.entries[state.next] = entry
                state.next = (state.next + 1) % limit
                state.dropped += 1
            }
        }
        lastActivity.store(now.uptimeNanoseconds, ordering: .relaxed)
    }

    /// The kept entries in arrival order, and how many older ones were dropped.
    var entries: (entries: [Entry], dropped: Int) {
        let (entries, dropped) = state.withLock { ($0.inOrder, $0.dropped) }
        // Answers can go out in another order than their requests came (a slow upstream, latency).
        return (entries.sorted { $0.arrived < $1.arrived }, dropped)
    }

    var tally: Tally {
        state.withLock { $0.tally }
    }

    /// Requests answered, dropped entries included.
    var count: Int {
        state.withLock { $0.entries.count + $0.dropped }
    }

    /// When an entry's request arrived, by the wall clock.
    func date(of entry: Entry) -> Date {
        origin.date.addingTimeInterval(Double((entry.arrived - origin.deadline).nanoseconds) / 1e9)
    }

    /// Empties the journal and its tallies (`POST /__cassette/sessions/ID/reset`).
    func clear() {
        state.withLock { $0 = State() }
        touch()
    }

    /// Counts as activity: a control call on the session.
    func touch() {
        lastActivity.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// How long the session has gone without a request or a control call.
    var idleTime: TimeAmount {
        .nanoseconds(Int64(NIODeadline.now().uptimeNanoseconds) - Int64(lastActivity.load(ordering: .relaxed)))
    }
}

extension SessionJournal.Tally {
    /// One answered request's share: served and recorded counts, and each missed key once, with
    /// what came nearest.
    mutating func count(_ source: SessionJournal.Source, key: String?, method: NIOHTTP1.HTTPMethod, target: String, answer: ProxyAnswer) {
        switch source {
        case .hit, .passthrough: served += 1
        case .recorded:
            served += 1
            recorded += 1
        case .error: break
        case .miss:
            let missedKey = key ?? "\(method.rawValue) \(target)"
            if let position = missedPositions[missedKey] {
                missed[position].count += 1
                return
            }
            missedPositions[missedKey] = missed.count
            let message =
                answer.miss?.miss.summary
                ?? (answer.source == .stale
                    ? "The recording of \(missedKey) is older than --max-age, and --stale fail refuses it" : "No recording of \(missedKey)")
            missed.append(SessionSummary.Missed(key: missedKey, count: 1, message: message, nearest: answer.miss?.miss.nearest ?? []))
        }
    }
}
