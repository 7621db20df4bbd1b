import CassetteKernel
import Foundation
import Logging
import WellPlateCore
import WellPlateNetworking

/// A cassette opened for serving: the one way the proxy's own cassette, every session's and a
/// forward proxy's are opened. It settles the listeners (one per upstream), the matching rules
/// (keys carry their origin when several hosts share the cassette), the answers a replay-only
/// cassette prepares while it loads, and refuses a cassette that cannot be served; then it makes
/// the pipelines its listeners serve it with.
package struct ServedCassette: Sendable {
    /// What the proxy and all its sessions share.
    package struct Context: Sendable {
        package var store: CassetteStore
        /// The proxy's upstream client; `nil` for a proxy that never forwards.
        package var upstream: (any HTTPTransport)?
        /// The settings as given, before a cassette filled in its upstreams.
        package var given: ProxySettings
        package var matchingRules: MatchingRules?
        package var redactor: Redactor
        package var sequencePolicy: SequencePolicy
        package var requestLog: RequestLog?
        /// The caller's: what the proxy reports outside the request log.
        package var logger: Logger
        /// Every answer the proxy and its sessions write, for the UI's Live view and a run's report.
        package var live: (any AnswerFeed)?
        /// What the modules add to the main port's control table (the web UI).
        package var mainPortControls: [ControlTable.Route] = []
        /// What they add to a session's own port's (the UI's refusal: it is on the main port).
        package var sessionPortControls: [ControlTable.Route] = []
        /// The protocol modules every listener offers (WebSocket).
        package var protocols: [any ServingProtocol] = []
        /// The writing tasks of WebSocket conversations being recorded, by the proxy and its sessions.
        package var conversationWriters = ConversationWriters()

        package init(
            store: CassetteStore, upstream: (any HTTPTransport)?, given: ProxySettings, matchingRules: MatchingRules?, redactor: Redactor,
            sequencePolicy: SequencePolicy, requestLog: RequestLog?, logger: Logger
        ) {
            self.store = store
            self.upstream = upstream
            self.given = given
            self.matchingRules = matchingRules
            self.redactor = redactor
            self.sequencePolicy = sequencePolicy
            self.requestLog = requestLog
            self.logger = logger
        }
    }

    /// Who serves the cassette.
    package enum Role: Sendable {
        /// The proxy itself, on its main port(s); `sessionsOnly`: its cassette is only looked at.
        case proxy(sessionsOnly: Bool)
        /// A session of a proxy laid out as `proxyLayout`, whose settings (its upstream settled)
        /// are `proxySettings`.
        case session(proxyLayout: UpstreamLayout, proxySettings: ProxySettings)
    }

    package let name: String
    /// Serves with `session.options.policy`: the one asked for, or replay only for a cassette
    /// that is only looked at (`--sessions-only`).
    package let session: CassetteSession
    /// The answers of a replay-only cassette, made while it loaded.
    package let prepared: PreparedAnswers
    package let layout: UpstreamLayout
    /// The settings its listeners serve with: the upstream settled, the recorded one when none was given.
    package let settings: ProxySettings
    /// Where its listeners are bound, once they are: URLs lead from one upstream to another.
    package let ports: ListenerPorts
    /// The hosts a replay-only forward cassette has recordings of (CONNECT to others is refused).
    package let recordedOrigins: Set<String>
    /// Its WebSocket conversations, loaded with it.
    package let conversations: RecordedConversations
    package var context: Context

    package var isForward: Bool { settings.forward != nil }

    /// Opens `name` with `policy` for `role`; every failure is a `ProxyError` that says what to do.
    package static func open(_ name: String, policy: ServingPolicy, role: Role, context: Context) async throws(ProxyError) -> ServedCassette {
        do {
            return try await opening(name, policy: policy, role: role, context: context)
        } catch let error as ProxyError {
            throw error
        } catch let error as CassetteStoreError {
            throw .store(error, cassette: name)
        } catch {
            throw .failure("cassette \"\(name)\" could not be opened: \(error)", code: "store_failed")
        }
    }

    private static func opening(_ name: String, policy: ServingPolicy, role: Role, context: Context) async throws -> ServedCassette {
        let store = context.store
        let saved = try await store.cassette(named: name)
        let forward = context.given.forward != nil
        var sessionsOnly = false
        var layout: UpstreamLayout
        var settings: ProxySettings
        var preparedBase: String?
        switch role {
        case .proxy(let only):
            sessionsOnly = only
            layout = try await UpstreamLayout(settings: context.given, saved: saved) { try await store.recordedOrigins(cassette: name) }
            settings = context.given
            if settings.upstream == nil { settings.upstream = layout.listeners[0].upstream }
            preparedBase = layout.isMultiHost ? nil : ProxyBase.prepared(host: context.given.host, port: context.given.port)
        case .session(let proxyLayout, let proxySettings):
            settings = proxySettings
            layout = forward ? proxyLayout : try await sessionLayout(name, saved: saved, proxyLayout: proxyLayout, context: context)
            if !layout.isMultiHost && !forward { settings.upstream = layout.listeners[0].upstream }
        }
        // With --sessions-only the proxy's own cassette is only looked at, never served or written.
        let served = sessionsOnly ? ServingPolicy.replayOnly : policy
        var rules = context.matchingRules
        if (layout.isMultiHost || forward) && rules?.includeHost != true {
            // Several hosts in one cassette: every key starts with its origin, so `GET /v1/me` on
            // two hosts are two recordings. Recorded keys are rekeyed to match once.
            var multiHost = rules ?? saved?.matchingRules ?? .default
            multiHost.includeHost = true
            rules = multiHost
        }
        var options = CassetteSession.Options(
            cassette: name, policy: served, matchingRules: rules, redactor: context.redactor, sequencePolicy: context.sequencePolicy,
            upstream: served.records && !layout.isMultiHost && !forward ? settings.upstream : nil)
        options.messageSecretShapes = settings.messageSecretShapes
        let upstream = served.forwards ? context.upstream : nil
        let ports = ListenerPorts()
        let session: CassetteSession
        var prepared = PreparedAnswers.empty
        if served.isReplayOnly {
            // Replay only: every answer is made while the cassette loads; those that lead back to
            // the upstream are made for the proxy's address when it is known before binding, else
            // rewritten per request for the address its client used.
            let makerSettings = forward ? settings : layout.settings(settings, listener: 0)
            let maker = layout.answerMaker(makerSettings, listener: 0, ports: ports, preparedBase: preparedBase)
            let opened = try await CassetteSession.open(store: store, options: options, upstream: upstream, preparing: ResponsePreparer(maker: maker))
            session = opened.session
            prepared = PreparedAnswers(opened.answers, maker: maker)
        } else {
            session = try await CassetteSession.open(store: store, options: options, upstream: upstream)
        }
        if served.records && layout.isMultiHost && !sessionsOnly {
            try await layout.remember(in: store, cassette: name)
        }
        let recordedConversations = try await store.conversations(cassette: name)
        var origins: Set<String> = []
        if forward && served.isReplayOnly {
            // A host recorded only through its WebSocket (`wss://` behind CONNECT) is a recorded host too.
            origins = Set(try await store.recordedOrigins(cassette: name))
            origins.formUnion(recordedConversations.compactMap { URL(string: $0.url).flatMap(CassetteInfo.origin(of:)) })
        }
        let conversations = RecordedConversations(recordedConversations)
        let opened = ServedCassette(
            name: name, session: session, prepared: prepared, layout: layout, settings: settings, ports: ports,
            recordedOrigins: origins, conversations: conversations, context: context)
        try await opened.checkUsable(served, sessionsOnly: sessionsOnly)
        return opened
    }

    /// The listeners a session lays out: the proxy's when it was given upstreams, else the hosts
    /// this cassette was recorded from (one, or one per host of a multi-host cassette), else the
    /// proxy's own cassette's. Its base path decides the keys, so it is the cassette's own.
    private static func sessionLayout(
        _ name: String, saved: CassetteInfo?, proxyLayout: UpstreamLayout, context: Context
    ) async throws
        -> UpstreamLayout
    {
        let store = context.store
        let own = try await UpstreamLayout(settings: context.given, saved: saved) { try await store.recordedOrigins(cassette: name) }
        if !own.isMultiHost && own.listeners[0].upstream == nil {
            return UpstreamLayout(listeners: proxyLayout.listeners.map { UpstreamLayout.Listener(upstream: $0.upstream, port: 0, tls: $0.tls) })
        }
        return own
    }

    /// Refuses forwarding without an upstream, and a cassette with nothing to replay in a mode that only replays.
    private func checkUsable(_ served: ServingPolicy, sessionsOnly: Bool) async throws(ProxyError) {
        if served.forwards && !isForward && settings.upstream == nil && session.recordedUpstream == nil {
            throw .usage(
                "no upstream to forward to: pass --upstream URL or --env NAME (cassette \"\(name)\" does not say where it was recorded from)",
                code: "no_upstream",
                requestMessage:
                    "cassette \"\(name)\" does not say where it was recorded from and the proxy has no --upstream, so the session cannot forward; start the proxy with --upstream URL"
            )
        }
        guard !served.records, !sessionsOnly, session.index.interactionCount == 0, conversations.isEmpty else { return }
        let store = context.store
        let others = ((try? await store.cassettes()) ?? []).filter { $0.interactionCount > 0 }.map(\.name)
        let known = others.isEmpty ? "the store holds no recordings" : "cassettes with recordings: \(others.prefix(20).joined(separator: ", "))"
        throw ProxyError(
            .store(.missingCassette(name, path: store.path, available: others)),
            CassetteStoreError.missingCassette(name, path: store.path, available: others).message,
            status: 404, code: "unknown_cassette",
            requestMessage:
                "cassette \"\(name)\" has no recordings in \(store.path) (\(known)); record it first with mode \"once\" or \"missing\" on a proxy that records, or check the name"
        )
    }

    /// The pipelines of a reverse proxy's listeners, one per upstream. `sessions`: the main
    /// port's registry; `journal` and `logLabel` (`session ID`): a session's.
    package func reversePipelines(sessions: SessionRegistry? = nil, journal: SessionJournal? = nil, logLabel: String? = nil) -> [ServingPipeline] {
        layout.listeners.indices.map { position in
            let listenerSettings = layout.settings(settings, listener: position)
            return ServingPipeline(
                served: self, settings: listenerSettings,
                maker: layout.answerMaker(listenerSettings, listener: position, ports: ports, preparedBase: nil), sessions: sessions,
                journal: journal, logLabel: logLabel, listener: position)
        }
    }

    /// The listener of a forward proxy serving this cassette: per host, a pipeline recording or replaying it.
    package func forwardListener(
        _ forward: any ForwardListening, sessions: SessionRegistry? = nil, journal: SessionJournal? = nil, logLabel: String? = nil
    ) -> ForwardListener {
        forward.listener(
            served: self, maker: layout.answerMaker(settings, listener: 0, ports: ports, preparedBase: nil), sessions: sessions, journal: journal,
            logLabel: logLabel)
    }
}
