import CassetteForward
import CassetteKernel
import CassetteServing
import CassetteUI
import CassetteUIServer
import CassetteWebSocket
import Foundation
import Logging
import NIOPosix
import WellPlateCore
import WellPlateNetworking

/// Starts the proxy for `record`, `replay` and `run`: opens the store and the cassette, binds, and
/// on shutdown lets in-flight requests finish and closes the store. What it has to say goes to
/// its caller: the lines to announce (`Running.announcement`), the summary (`Stopped`), and
/// warnings and failures through the `Logger` it is given; request lines go to `requestLogDescriptor`.
package struct ProxyRunner {
    var storePath: String
    var cassette: String
    var policy: ServingPolicy
    var settings: ProxySettings
    package var matchingRules: MatchingRules?
    package var redactor: Redactor = .default
    var sequencePolicy: SequencePolicy = .repeatLast
    /// `--track-usage`: add each recording's replays to the store on shutdown.
    var tracksUsage = false
    /// Where request lines go: stdout for `record`/`replay`, stderr for `run`, whose child owns stdout.
    var requestLogDescriptor: Int32 = STDOUT_FILENO
    let logger: Logger
    /// The UI's Drift view for the opened store (`UICatalog.findings`): the command makes it,
    /// since the audit and the drift are tool code the proxy does not link.
    package var findings: (@Sendable (CassetteStore) -> @Sendable () async throws -> JSONValue)?

    /// The cassette it serves.
    package var cassetteName: String { cassette }

    package init(
        storePath: String, cassette: String, policy: ServingPolicy, settings: ProxySettings, matchingRules: MatchingRules? = nil,
        redactor: Redactor = .default, sequencePolicy: SequencePolicy = .repeatLast, tracksUsage: Bool = false,
        requestLogDescriptor: Int32 = STDOUT_FILENO, logger: Logger
    ) {
        self.storePath = storePath
        self.cassette = cassette
        self.policy = policy
        self.settings = settings
        self.matchingRules = matchingRules
        self.redactor = redactor
        self.sequencePolicy = sequencePolicy
        self.tracksUsage = tracksUsage
        self.requestLogDescriptor = requestLogDescriptor
        self.logger = logger
    }

    package struct Running {
        let server: ProxyServer
        let served: ServedCassette
        let requestLog: RequestLog?
        let sessions: SessionRegistry
        /// The UI's Live view, which also collects a run's requests for its report.
        let live: LiveFeed

        /// `http://HOST:PORT`, the address the proxy listens on (its first listener's).
        package var address: String { server.address }
        /// Every listener's address, in upstream order.
        package var addresses: [String] { server.addresses }
        /// What to tell the user once it listens: `listening on ADDRESS` per listener (on a
        /// multi-host proxy with the upstream each stands in for), and how a forward proxy is used.
        package let announcement: [String]

        /// Keeps every request the proxy answers from now on, and every session that ends, for
        /// `cassette run --report`.
        package func keepRequests() {
            live.startCollecting()
            sessions.keepEveryEndedSession()
        }

        /// The requests kept since `keepRequests()`, as the UI's Live view shows them, and how
        /// many did not fit.
        package var keptRequests: (requests: [JSONValue], dropped: Int) {
            let collected = live.collected()
            return (collected.events, collected.dropped)
        }

        /// The proxy's sessions as the UI's Sessions view shows them (live ones, then the last
        /// that ended), for `cassette run --report`: taken before the proxy stops.
        package var sessionPictures: [JSONValue] {
            sessions.uiJSON().objectValue?["sessions"]?.arrayValue ?? []
        }

        /// The keys of the served cassette that nothing replayed so far.
        package var unusedKeys: [String] {
            served.session.index.statistics.unusedKeys
        }
    }

    /// What a stopped proxy served.
    package struct Stopped {
        package var counters: CassetteSession.Counters
        /// `recorded N, replayed N, missed N, ...`, then warnings and unused recordings.
        package var summary: [String]
    }

    /// Opens everything and starts listening.
    package func start() async throws(ProxyError) -> Running {
        if settings.sessionsOnly && settings.forward != nil {
            throw .usage(
                "--sessions-only is for a reverse proxy: a forward proxy's main port is the proxy its clients use (its sessions are served all the same); drop --sessions-only"
            )
        }
        let store: CassetteStore
        do {
            store = try await CassetteStore.open(path: storePath, access: policy.records ? .readWrite : .readOnly, durability: settings.durability)
        } catch {
            throw .store(error, cassette: cassette)
        }
        do {
            return try await start(store: store)
        } catch {
            try? await store.close()
            throw error
        }
    }

    private func start(store: CassetteStore) async throws(ProxyError) -> Running {
        let requestLog = settings.logRequests ? RequestLog(descriptor: requestLogDescriptor, shards: max(1, settings.threads) + 1) : nil
        var context = ServedCassette.Context(
            store: store, upstream: nil, given: settings, matchingRules: matchingRules, redactor: redactor, sequencePolicy: sequencePolicy,
            requestLog: requestLog, logger: logger)
        if policy.forwards {
            let layout: UpstreamLayout
            do {
                let saved = try await store.cassette(named: cassette)
                layout = try await UpstreamLayout(settings: settings, saved: saved) { try await store.recordedOrigins(cassette: cassette) }
            } catch let error as CassetteStoreError {
                throw .store(error, cassette: cassette)
            } catch {
                throw .failure("cassette \"\(cassette)\" could not be opened: \(error)")
            }
            context.upstream = try makeUpstream(layout, log: ProxyLog(requestLog: requestLog, stalePolicy: nil, logger: logger))
        }
        let live = LiveFeed()
        context.live = live
        context.registerModules(grpc: try await loadedGRPCOptions(store: store))
        var served = try await ServedCassette.open(cassette, policy: policy, role: .proxy(sessionsOnly: settings.sessionsOnly), context: context)
        // The sessions keep the rules the proxy's cassette settled (keys with their origin on several hosts).
        context.matchingRules = served.session.options.matchingRules
        // Sessions listen on the main server's event loops.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, settings.threads))
        let forward: ForwardServing?
        do throws(ProxyError) {
            forward = try settings.forward.map { options throws(ProxyError) in try forwardServing(options) }
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        let sessions = SessionRegistry(
            SessionRegistry.Configuration(context: context, policy: policy, layout: served.layout, settings: served.settings, forward: forward),
            group: group)
        // The web UI on the main port.
        let uiAccess = UIAccess.forHost(settings.host)
        var catalog = Self.catalog(store: store, serving: served)
        catalog.findings = findings?(store)
        let ui = UIEndpoints(catalog: catalog, access: uiAccess, live: live, sessions: { sessions.uiJSON() })
        served.context.mainPortControls = [ui.route]
        let pipelines: [any ConnectionPipeline]
        var ports = served.layout.listeners.map(\.port)
        var authority: String?
        if let forward {
            let listener = served.forwardListener(forward, sessions: sessions)
            pipelines = [listener.pipeline]
            ports = [settings.port]
            authority = listener.authorityPath
        } else {
            pipelines = served.reversePipelines(sessions: sessions)
        }
        let server: ProxyServer
        do {
            server = try await ProxyServer.start(
                listeners: zip(pipelines, ports).map { ProxyServer.Listener(pipeline: $0, host: settings.host, port: $1) }, group: group,
                ownsGroup: true)
        } catch {
            throw .failure("\(error)")
        }
        served.ports.set(server.ports)
        let upstreams = served.layout.isMultiHost && forward == nil ? served.layout.listeners.map(\.upstream) : []
        for warning in warnings { logger.warning("\(warning)") }
        var lines = server.addresses.enumerated().map { position, address in
            let upstream = position < upstreams.count ? upstreams[position].map { redactor.redact(url: $0) } : nil
            return "listening on \(address)" + (upstream.map { " for \($0)" } ?? "")
        }
        // Only off loopback, where the token must be given once: the output scripts parse on
        // loopback stays as it was (the UI is at /__cassette/ui/ on the main port all the same).
        if uiAccess.token != nil { lines.append("ui on \(server.address)\(ControlNames.ui)/\(uiAccess.query)") }
        if let authority {
            lines.append(
                "forward proxy: set HTTPS_PROXY and HTTP_PROXY to \(server.address); clients must trust \(authority) (`cassette ca path`)")
        }
        return Running(server: server, served: served, requestLog: requestLog, sessions: sessions, live: live, announcement: lines)
    }

    /// The UI's view of `store`: the served cassette's unused recordings and gRPC methods as the
    /// proxy counts them.
    private static func catalog(store: CassetteStore, serving served: ServedCassette) -> UICatalog {
        var catalog = UICatalog(store: store)
        let (session, conversations) = (served.session, served.conversations)
        catalog.unusedByCassette = { [session.options.cassette: session.index.statistics.unusedKeys.count] }
        catalog.unusedGRPCMethodsByCassette = {
            let methods = conversations.grpcKeys
            guard !methods.isEmpty else { return [:] }
            return [session.options.cassette: conversations.untakenKeys.count { methods.contains($0) }]
        }
        return catalog
    }

    /// The transport forwarded requests take: libcurl with the listener's TLS settings, one per
    /// upstream when they differ (`UpstreamRouter`). `log` hears what a transport learns once (an
    /// upstream that speaks HTTP/1.1 only to an HTTP/2 client).
    private func makeUpstream(_ layout: UpstreamLayout, log: ProxyLog) throws(ProxyError) -> any HTTPTransport {
        var transports: [String: CurlTransport] = [:]
        var byTLS: [(TLSConfiguration, CurlTransport)] = []
        var first: CurlTransport?
        for listener in layout.listeners {
            let transport: CurlTransport
            if let shared = byTLS.first(where: { $0.0 == listener.tls })?.1 {
                transport = shared
            } else {
                var transportConfiguration = CurlTransport.Configuration()
                transportConfiguration.maxResponseBodySize = settings.maxBodySize
                transportConfiguration.tls = listener.tls
                transportConfiguration.timeout = settings.upstreamTimeout
                transportConfiguration.notice = { log.warn("cassette: " + $0) }
                do {
                    transport = try CurlTransport(configuration: transportConfiguration)
                } catch  where error.kind == .tls {
                    throw .usage(TLSHint.message(error))
                } catch {
                    throw .failure("libcurl could not start: \(error)")
                }
                byTLS.append((listener.tls, transport))
            }
            first = first ?? transport
            if let origin = listener.upstream.flatMap(CassetteInfo.origin(of:)) { transports[origin] = transport }
        }
        guard let first else { throw .usage("no upstream to forward to") }
        return byTLS.count == 1 ? first : UpstreamRouter(routes: transports, fallback: first)
    }

    /// Whether forwarded requests skip certificate checks (warned about at start, in the summary and health).
    private var skipsVerification: Bool {
        settings.tls.insecure && !policy.isReplayOnly
    }

    /// What to warn about as the proxy starts: unverified upstreams, and a listener the network reaches.
    private var warnings: [String] {
        var warnings: [String] = []
        if skipsVerification { warnings.append(TLSHint.insecureWarning) }
        if !Self.isLoopback(settings.host) {
            warnings.append(
                "listening on \(settings.host): recordings and any secrets in them are reachable from the network; use --host 127.0.0.1 to keep them local")
        }
        return warnings
    }

    /// Adds this run's replays per recording to the store (opened for writing only now, so a
    /// replay without `--track-usage` never touches the file); returns the summary's phrase.
    private func saveUsage(_ session: CassetteSession, conversations: RecordedConversations, sessions: SessionRegistry) async -> String {
        // The sessions' replays count too: a UI-test suite's recordings are served by sessions.
        let counts = session.index.replayCountsByRecording.merging(sessions.usage, uniquingKeysWith: +)
        let conversationCounts = conversations.replayCounts.merging(sessions.conversationUsage, uniquingKeysWith: +)
        do throws(CassetteStoreError) {
            let store = try await CassetteStore.open(path: storePath, access: .readWrite)
            do throws(CassetteStoreError) {
                try await store.addUsage(counts)
                try await store.addConversationUsage(conversationCounts)
            } catch {
                try? await store.close()
                throw error
            }
            try await store.close()
            // A session's calls may come from another cassette than the proxy's own.
            let grpcIDs = conversations.grpcIDs.union(sessions.grpcCallIDs)
            let calls = conversationCounts.keys.filter { grpcIDs.contains($0) }.count
            let sockets = conversationCounts.count - calls
            var parts = ["\(Formatting.count(counts.count, "recording"))"]
            if sockets > 0 { parts.append(Formatting.count(sockets, "WebSocket conversation")) }
            if calls > 0 { parts.append(Formatting.count(calls, "gRPC call")) }
            return "usage saved for " + parts.joined(separator: " and ")
        } catch {
            logger.error("could not save usage: \(error.message)")
            return "usage not saved"
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        ListenAddress.isLoopback(host)
    }

    /// Graceful stop: no new connections, in-flight requests answered, store closed; returns the summary.
    package func stop(_ running: Running) async -> Stopped {
        // Sessions first: their requests in flight are answered while the event loops still run.
        await running.sessions.closeAll()
        // The modules' upstream connections close once no call is left on them.
        let protocols = running.served.context.protocols
        await running.server.shutdown {
            for module in protocols { await module.shutdown() }
        }
        // Conversations cut by the shutdown write what they received, and their end, first.
        await running.served.context.conversationWriters.finishAll()
        running.requestLog?.close()
        let session = running.served.session
        do {
            try await running.served.context.store.close()
        } catch {
            logger.error("\(error.message)")
        }
        var counters = session.statistics
        let unused = settings.sessionsOnly ? [] : session.index.statistics.unusedKeys
        let refused = settings.stalePolicy.map { $0.fails ? $0.count : 0 } ?? 0
        // WebSocket conversations apart, after the requests' counts (their misses count for --strict).
        let conversations = running.served.conversations
        let tally = session.conversationTally
        // gRPC calls are conversations in the store, and counted apart from WebSocket ones.
        let grpcIDs = conversations.grpcIDs
        let replays = conversations.replayCounts
        let conversationsReplayed = replays.filter { !grpcIDs.contains($0.key) }.values.reduce(0, +)
        let callsReplayed = replays.filter { grpcIDs.contains($0.key) }.values.reduce(0, +)
        let grpcKeys = conversations.grpcKeys
        let hasWebSocket = conversations.keys.contains { !grpcKeys.contains($0) }
        var summary =
            "recorded \(counters.recorded), replayed \(counters.replayed - refused), missed \(counters.missed - tally.missed - tally.grpcMissed)"
        if let stale = settings.stalePolicy, stale.count > 0 {
            summary += ", \(stale.fails ? "refused as stale" : "stale") \(stale.count)"
        }
        // A refusal is a miss for --strict, not a replay.
        counters.missed += refused
        counters.replayed -= refused
        if counters.passthrough > 0 { summary += ", passed through \(counters.passthrough)" }
        if tally.recorded + conversationsReplayed + tally.missed > 0 || hasWebSocket {
            summary += ", WebSocket conversations recorded \(tally.recorded), replayed \(conversationsReplayed), missed \(tally.missed)"
        }
        if tally.grpcRecorded + callsReplayed + tally.grpcMissed > 0 || !grpcKeys.isEmpty {
            summary += ", gRPC calls recorded \(tally.grpcRecorded), replayed \(callsReplayed), missed \(tally.grpcMissed)"
        }
        if tracksUsage { summary += ", " + (await saveUsage(session, conversations: conversations, sessions: running.sessions)) }
        summary += ", unused recordings \(unused.count)"
        let untaken = settings.sessionsOnly ? [] : conversations.untakenKeys
        let unusedConversations = untaken.filter { !grpcKeys.contains($0) }
        let unusedMethods = untaken.filter { grpcKeys.contains($0) }
        if hasWebSocket { summary += ", unused conversations \(unusedConversations.count)" }
        if !grpcKeys.isEmpty { summary += ", unused gRPC methods \(unusedMethods.count)" }
        var lines = [summary]
        if skipsVerification { lines.append("warning: \(TLSHint.insecureWarning)") }
        if !unused.isEmpty && policy.asksToReplay {
            lines += unused.prefix(10).map { "  unused: \($0)" }
            if unused.count > 10 { lines.append("  … and \(unused.count - 10) more") }
        }
        if !unusedConversations.isEmpty && policy.asksToReplay {
            lines += unusedConversations.prefix(10).map { "  unused: WebSocket \($0)" }
            if unusedConversations.count > 10 { lines.append("  … and \(unusedConversations.count - 10) more") }
        }
        if !unusedMethods.isEmpty && policy.asksToReplay {
            lines += unusedMethods.prefix(10).map { "  unused: gRPC \($0.hasPrefix("POST ") ? String($0.dropFirst(5)) : $0)" }
            if unusedMethods.count > 10 { lines.append("  … and \(unusedMethods.count - 10) more") }
        }
        return Stopped(counters: counters, summary: lines)
    }
}
