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
        /// When the request was complete, for ordering: entries go in as answers go out.
        let arrived: NIODeadline
        let at: Date
        let duration: TimeAmount
        let miss: ReportedMiss?
        /// Set for a refusal of a stale recording (`--stale fail`), which counts as a miss.
        let stale: Bool

        var path: Substring { target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
        var query: Substring? {
            guard let mark = target.firstIndex(of: "?") else { return nil }
            return target[target.index(after: mark)...]
        }
    }

    private let entries = Mutex<[Entry]>([])
    /// `NIODeadline` nanoseconds of the last request or control call (`SessionRegistry` closes
    /// sessions idle for too long).
    private let lastActivity = Atomic<UInt64>(NIODeadline.now().uptimeNanoseconds)

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
        let duration = now - started
        let entry = Entry(
            method: method.rawValue, target: target, key: key, status: answer.statusCode, source: source, arrived: started,
            at: Date(timeIntervalSinceNow: -Double(duration.nanoseconds) / 1e9), duration: duration, miss: answer.miss, stale: answer.source == .stale)
        entries.withLock { $0.append(entry) }
        lastActivity.store(now.uptimeNanoseconds, ordering: .relaxed)
    }

    /// Every entry in arrival order.
    var all: [Entry] {
        // Answers can go out in another order than their requests came (a slow upstream, latency).
        entries.withLock { $0 }.sorted { $0.arrived < $1.arrived }
    }

    /// How many requests the journal holds.
    var count: Int {
        entries.withLock { $0.count }
    }

    /// Empties the journal (`POST /__cassette/sessions/ID/reset`).
    func clear() {
        entries.withLock { $0.removeAll() }
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
