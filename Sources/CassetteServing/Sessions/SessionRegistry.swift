import CassetteKernel
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import WellPlateCore
import WellPlateNetworking

/// The proxy's live sessions: at most `--max-sessions` at once, each closed after
/// `--session-idle-timeout` without a request, all closed (their requests in flight answered)
/// before the proxy stops. The main port finds a session here for `X-Cassette-Session`.
package final class SessionRegistry: Sendable {
    /// What every session of this proxy shares with it.
    package struct Configuration: Sendable {
        /// The store, the upstream client, the settings as given, rules and the request log.
        package var context: ServedCassette.Context
        /// The proxy's own: a session that names no mode opens in its mode, and every session
        /// has its `--on-miss`.
        package var policy: ServingPolicy
        /// The proxy's listeners (one per upstream) and settings (its upstream settled).
        package var layout: UpstreamLayout
        package var settings: ProxySettings
        /// A forward proxy's: each session is a forward proxy of its own.
        package var forward: (any ForwardListening)?

        package init(
            context: ServedCassette.Context, policy: ServingPolicy, layout: UpstreamLayout, settings: ProxySettings, forward: (any ForwardListening)?
        ) {
            self.context = context
            self.policy = policy
            self.layout = layout
            self.settings = settings
            self.forward = forward
        }
    }

    private struct State {
        package var sessions: [String: ProxySession] = [:]
        /// Sessions being opened: they count against the limit already.
        package var opening = 0
        package var closing = false
        package var sweeper: Task<Void, Never>?
    }

    package let configuration: Configuration
    package let group: MultiThreadedEventLoopGroup
    private let state = Mutex(State())
    /// Replays per recording id of the sessions already closed, for `--track-usage`.
    private let closedUsage = Mutex<[Int64: Int]>([:])
    /// Replays per WebSocket conversation or gRPC call id of the sessions already closed, likewise.
    private let closedConversationUsage = Mutex<[Int64: Int]>([:])
    /// Which of those ids are gRPC calls: a session's cassette may be one the proxy's own
    /// conversations do not hold, and the summary names calls and conversations apart.
    private let closedGRPCCallIDs = Mutex<Set<Int64>>([])
    /// The Sessions view's pictures of the last sessions that ended (`SessionRegistry+UI.swift`).
    package let ended = Mutex<EndedSessions>(EndedSessions())
    private let log: ProxyLog

    package init(_ configuration: Configuration, group: MultiThreadedEventLoopGroup) {
        self.configuration = configuration
        self.group = group
        log = ProxyLog(requestLog: configuration.context.requestLog, stalePolicy: nil, logger: configuration.context.logger)
    }

    package var maxSessions: Int { configuration.settings.maxSessions }

    /// Where a request for session `id` on the main port goes; `nil` for an id that is not live.
    /// `listener`: the position of the main-port listener it arrived on.
    /// `origin`: the upstream it stands in for.
    package func route(_ id: String, listener: Int, origin: String?, on eventLoop: any EventLoop) -> ServingRoute? {
        guard let session = state.withLock({ $0.sessions[id] }) else { return nil }
        return session.route(listener: listener, origin: origin, on: eventLoop)
    }

    /// The live session `id`; `touching` counts the call as the session's activity.
    package func session(_ id: String, touching: Bool) -> ProxySession? {
        let session = state.withLock { $0.sessions[id] }
        if touching { session?.journal.touch() }
        return session
    }

    /// The live sessions, oldest id first.
    package var live: [ProxySession] {
        state.withLock { Array($0.sessions.values) }.sorted { $0.id < $1.id }
    }

    /// Counts a session about to open against the limit, or says why it cannot.
    package func reserve() throws(ProxyRequestError) {
        try state.withLock { state throws(ProxyRequestError) in
            guard !state.closing else {
                throw ProxyRequestError(status: 503, code: "shutting_down", message: "the proxy is shutting down; start a new one to open sessions")
            }
            guard state.sessions.count + state.opening < maxSessions else {
                throw ProxyRequestError(
                    status: 429, code: "too_many_sessions",
                    message: maxSessions == 0
                        ? "this proxy was started with --max-sessions 0, so it opens no sessions; restart it with a limit above 0"
                        : "\(maxSessions) sessions are open, the most this proxy allows (--max-sessions \(maxSessions)); end one with DELETE /__cassette/sessions/ID or start the proxy with a higher --max-sessions"
                )
            }
            state.opening += 1
        }
    }

    /// Gives back a reservation that did not become a session.
    package func release() {
        state.withLock { $0.opening -= 1 }
    }

    /// Adds an opened session (its reservation becomes it); `false` when the proxy began
    /// stopping meanwhile, and the caller closes it.
    package func register(_ session: ProxySession) -> Bool {
        let added = state.withLock { state -> Bool in
            state.opening -= 1
            guard !state.closing else { return false }
            state.sessions[session.id] = session
            if state.sweeper == nil { state.sweeper = startSweeper() }
            return true
        }
        if added {
            note(
                "session \(session.id) started: cassette \"\(session.cassette)\", mode \(session.mode.rawValue), \(session.listeners.map(\.baseURL).joined(separator: " "))"
            )
        }
        return added
    }

    /// A new session id no live session has.
    package func newID() -> String {
        while true {
            let id = String(format: "%012llx", UInt64.random(in: 0..<(1 << 48)))
            if state.withLock({ $0.sessions[id] == nil }) { return id }
        }
    }

    /// Ends session `id`: its listener closes once its requests in flight are answered; returns
    /// what it served, or `nil` for an id that is not live.
    package func end(_ id: String) async -> (session: ProxySession, summary: SessionSummary)? {
        guard let session = state.withLock({ $0.sessions.removeValue(forKey: id) }) else { return nil }
        await session.close()
        keepUsage(of: session)
        let summary = session.summary
        keepEnded(session, state: "ended")
        note("session \(id) ended: \(summary.line)")
        return (session, summary)
    }

    /// Closes every session, for the proxy's shutdown; no session opens after this began.
    package func closeAll() async {
        let (sessions, sweeper) = state.withLock { state in
            state.closing = true
            let taken = Array(state.sessions.values)
            state.sessions.removeAll()
            let sweeper = state.sweeper
            state.sweeper = nil
            return (taken, sweeper)
        }
        sweeper?.cancel()
        await withTaskGroup(of: Void.self) { group in
            for session in sessions {
                group.addTask { await session.close() }
            }
        }
        for session in sessions { keepUsage(of: session) }
        for session in sessions.sorted(by: { $0.id < $1.id }) {
            note("session \(session.id) closed as the proxy stopped: \(session.summary.line)")
        }
    }

    /// Checks for idle sessions a few times per timeout (at most every 5 s).
    private func startSweeper() -> Task<Void, Never> {
        let timeout = configuration.settings.sessionIdleTimeout
        let interval = min(max(timeout / 4, .milliseconds(50)), .seconds(5))
        return Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                await self.closeIdle(after: timeout)
            }
        }
    }

    private func closeIdle(after timeout: Duration) async {
        let limit = TimeAmount(timeout)
        let idle = state.withLock { state in
            let idle = state.sessions.values.filter { $0.journal.idleTime >= limit }
            for session in idle { state.sessions.removeValue(forKey: session.id) }
            return idle
        }
        for session in idle.sorted(by: { $0.id < $1.id }) {
            await session.close()
            keepUsage(of: session)
            keepEnded(session, state: "closed when idle")
            let milliseconds = Double(timeout.components.seconds) * 1000 + Double(timeout.components.attoseconds) / 1e15
            note(
                "session \(session.id) closed after \(Formatting.duration(milliseconds: milliseconds)) without a request (--session-idle-timeout): \(session.summary.line)"
            )
        }
    }

    /// Replays per recording id of every session closed so far (recording ids are the store's,
    /// so sessions of different cassettes add up without clashing).
    package var usage: [Int64: Int] {
        closedUsage.withLock { $0 }
    }

    /// Replays per conversation id of every session closed so far.
    package var conversationUsage: [Int64: Int] {
        closedConversationUsage.withLock { $0 }
    }

    /// The ids among `conversationUsage` that are gRPC calls.
    package var grpcCallIDs: Set<Int64> {
        closedGRPCCallIDs.withLock { $0 }
    }

    private func keepUsage(of session: ProxySession) {
        let counts = session.session.index.replayCountsByRecording
        if !counts.isEmpty {
            closedUsage.withLock { usage in
                usage.merge(counts, uniquingKeysWith: +)
            }
        }
        // The session's listeners share its conversations (WebSocket and gRPC alike).
        let replays = session.conversations.replayCounts
        guard !replays.isEmpty else { return }
        closedConversationUsage.withLock { usage in
            usage.merge(replays, uniquingKeysWith: +)
        }
        let calls = session.conversations.grpcIDs.intersection(replays.keys)
        if !calls.isEmpty { closedGRPCCallIDs.withLock { $0.formUnion(calls) } }
    }

    /// A line in the proxy's output, in order with the request log.
    package func note(_ line: String) {
        log.warn(line)
    }
}
