import CassetteTools
import Foundation
import NIOPosix
import WellPlateCore
import WellPlateNetworking

/// Starts the proxy for `record`, `replay` and `run`: opens the store and the cassette, binds,
/// prints `listening on`, and on shutdown lets in-flight requests finish, closes the store and
/// prints what happened.
package struct ProxyRunner {
    var storePath: String
    var cassette: String
    /// The session's record mode; a replay that records its misses runs as `missing`.
    var mode: RecordMode
    var settings: ProxySettings
    package var matchingRules: MatchingRules?
    package var redactor: Redactor = .default
    var sequencePolicy: SequencePolicy = .repeatLast
    /// `record` or `replay`, for the health endpoint and messages.
    var modeName: String
    /// `--track-usage`: add each recording's replays to the store on shutdown.
    var tracksUsage = false
    /// Where request lines and the summary go: stdout for `record`/`replay`, stderr for `run`,
    /// whose child owns stdout.
    var outputDescriptor: Int32 = STDOUT_FILENO

    package init(
        storePath: String, cassette: String, mode: RecordMode, settings: ProxySettings, matchingRules: MatchingRules? = nil,
        redactor: Redactor = .default, sequencePolicy: SequencePolicy = .repeatLast, modeName: String, tracksUsage: Bool = false,
        outputDescriptor: Int32 = STDOUT_FILENO
    ) {
        self.storePath = storePath
        self.cassette = cassette
        self.mode = mode
        self.settings = settings
        self.matchingRules = matchingRules
        self.redactor = redactor
        self.sequencePolicy = sequencePolicy
        self.modeName = modeName
        self.tracksUsage = tracksUsage
        self.outputDescriptor = outputDescriptor
    }

    package struct Running {
        let server: ProxyServer
        let session: CassetteSession
        let store: CassetteStore
        let requestLog: RequestLog?
        let sessions: SessionRegistry

        /// `http://HOST:PORT`, the address the proxy listens on (its first listener's).
        package var address: String { server.address }
        /// Every listener's address, in upstream order.
        package var addresses: [String] { server.addresses }
    }

    /// Serves until SIGINT or SIGTERM, then stops gracefully; `strict` turns misses into status 1.
    package func serveUntilSignalled(strict: Bool = false) async throws {
        let signals = SignalWaiter()
        let running = try await start()
        _ = await signals.next()
        let counters = await stop(running)
        if strict && counters.missed > 0 {
            throw CLIError("--strict: \(counters.missed) request(s) had no recording", exitStatus: 1)
        }
    }

    /// Opens everything and starts listening; the `listening on` lines are printed once bound.
    package func start() async throws -> Running {
        if settings.sessionsOnly && settings.forward != nil {
            throw CLIError.usage(
                "--sessions-only is for a reverse proxy: a forward proxy's main port is the proxy its clients use (its sessions are served all the same); drop --sessions-only"
            )
        }
        let recording = mode != .replayOnly || settings.missPolicy == .record
        let store: CassetteStore
        do {
            store = try await CassetteStore.open(path: storePath, access: recording ? .readWrite : .readOnly, durability: settings.durability)
        } catch {
            throw CLIError(error)
        }
        // With --sessions-only the proxy's own cassette is only looked at, never served or written.
        let sessionMode: RecordMode =
            settings.sessionsOnly ? .replayOnly : settings.missPolicy == .record && mode == .replayOnly ? .missing : mode
        let layout: UpstreamLayout
        let saved: CassetteInfo?
        do {
            saved = try await store.cassette(named: cassette)
            layout = try await UpstreamLayout(settings: settings, saved: saved) { try await store.recordedOrigins(cassette: cassette) }
        } catch let error as CassetteStoreError {
            throw CLIError(error)
        }
        var upstream: (any HTTPTransport)?
        if recording || settings.missPolicy == .passthrough {
            upstream = try makeUpstream(layout)
        }
        var rules = matchingRules
        if layout.isMultiHost || settings.forward != nil {
            // Several hosts in one cassette: every key starts with its origin, so `GET /v1/me` on
            // two hosts are two recordings. Recorded keys are rekeyed to match once.
            var multiHost = matchingRules ?? saved?.matchingRules ?? .default
            multiHost.includeHost = true
            rules = multiHost
        }
        let options = CassetteSession.Options(
            cassette: cassette, mode: sessionMode, matchingRules: rules, redactor: redactor,
            sequencePolicy: sequencePolicy, upstream: recording && !layout.isMultiHost && settings.forward == nil ? settings.upstream : nil
        )
        let session: CassetteSession
        var prepared = PreparedAnswers.empty
        var served = settings
        if served.upstream == nil { served.upstream = layout.listeners[0].upstream }
        let ports = ListenerPorts()
        do {
            if settings.isReplayOnly(mode: sessionMode) {
                // Replay only: every answer is made while the cassette loads; those that lead
                // back to the upstream are made rewritten for the proxy's address (per request
                // on a multi-host proxy, whose URLs lead to several listeners).
                let preparedBase = layout.isMultiHost ? nil : ProxyBase.prepared(host: settings.host, port: settings.port)
                let maker = layout.answerMaker(served, listener: 0, ports: ports, preparedBase: preparedBase)
                let opened = try await CassetteSession.open(store: store, options: options, upstream: upstream, preparing: ResponsePreparer(maker: maker))
                session = opened.session
                prepared = PreparedAnswers(opened.answers, maker: maker)
            } else {
                session = try await CassetteSession.open(store: store, options: options, upstream: upstream)
            }
            if recording && layout.isMultiHost && !settings.sessionsOnly {
                try await layout.remember(in: store, cassette: cassette)
            }
        } catch let error as CassetteStoreError {
            throw CLIError(error)
        }
        try await checkUsable(session: session, store: store, forwards: upstream != nil && served.upstream == nil && settings.forward == nil)

        let requestLog = settings.logRequests ? RequestLog(descriptor: outputDescriptor, shards: max(1, settings.threads) + 1) : nil
        // Sessions listen on the main server's event loops.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, settings.threads))
        let forward = try settings.forward.map { try forwardServing($0, requestLog: requestLog) }
        let sessions = SessionRegistry(
            SessionRegistry.Configuration(
                store: store, upstream: upstream, settings: served, defaultMode: mode, matchingRules: rules, redactor: redactor,
                sequencePolicy: sequencePolicy, modeName: modeName, requestLog: requestLog, layout: layout,
                given: settings, forward: forward),
            group: group)
        if let forward {
            let replayOnly = settings.isReplayOnly(mode: sessionMode)
            let origins = replayOnly ? Set((try? await store.recordedOrigins(cassette: cassette)) ?? []) : []
            let pipeline = forward.pipeline(
                session: session, settings: served, prepared: prepared,
                maker: layout.answerMaker(served, listener: 0, ports: ports, preparedBase: nil), recordedOrigins: origins, sessions: sessions)
            let server = try await ProxyServer.start(
                listeners: [ProxyServer.Listener(pipeline: pipeline, host: settings.host, port: settings.port)], group: group, ownsGroup: true)
            announce(server.addresses, upstreams: [])
            announceForward(server.address, authority: pipeline.router.leaves.authority)
            return Running(server: server, session: session, store: store, requestLog: requestLog, sessions: sessions)
        }
        let pipelines = layout.pipelines(
            session: session, served: served, prepared: prepared, ports: ports, modeName: modeName, requestLog: requestLog, sessions: sessions)
        let listeners = zip(pipelines, layout.listeners).map { pipeline, listener in
            ProxyServer.Listener(pipeline: pipeline, host: settings.host, port: listener.port)
        }
        let server = try await ProxyServer.start(listeners: listeners, group: group, ownsGroup: true)
        ports.set(server.ports)
        announce(server.addresses, upstreams: layout.isMultiHost ? layout.listeners.map(\.upstream) : [])
        return Running(server: server, session: session, store: store, requestLog: requestLog, sessions: sessions)
    }

    /// The transport forwarded requests take: libcurl with the listener's TLS settings, one per
    /// upstream when they differ (`UpstreamRouter`).
    private func makeUpstream(_ layout: UpstreamLayout) throws -> any HTTPTransport {
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
                do {
                    transport = try CurlTransport(configuration: transportConfiguration)
                } catch  where error.kind == .tls {
                    throw CLIError.usage(TLSHint.message(error))
                } catch {
                    throw CLIError("libcurl could not start: \(error)")
                }
                byTLS.append((listener.tls, transport))
            }
            first = first ?? transport
            if let origin = listener.upstream.flatMap(CassetteInfo.origin(of:)) { transports[origin] = transport }
        }
        guard let first else { throw CLIError("no upstream to forward to") }
        return byTLS.count == 1 ? first : UpstreamRouter(routes: transports, fallback: first)
    }

    private func checkUsable(session: CassetteSession, store: CassetteStore, forwards: Bool) async throws {
        if forwards && (settings.upstream ?? session.recordedUpstream) == nil {
            throw CLIError.usage(
                "no upstream to forward to: pass --upstream URL or --env NAME (cassette \"\(cassette)\" does not say where it was recorded from)")
        }
        guard mode == .replayOnly, settings.missPolicy != .record, !settings.sessionsOnly, session.index.interactionCount == 0 else { return }
        let others = (try? await store.cassettes().filter { $0.interactionCount > 0 }.map(\.name)) ?? []
        throw CLIError(CassetteStoreError.missingCassette(cassette, path: storePath, available: others))
    }

    /// Whether forwarded requests skip certificate checks (warned about at start, in the summary and health).
    private var skipsVerification: Bool {
        settings.tls.insecure && !settings.isReplayOnly(mode: mode)
    }

    /// `listening on http://HOST:PORT`, one line per listener; on a multi-host proxy each line
    /// names its upstream (`... for https://api.example.com`), in upstream order, flushed at once.
    private func announce(_ addresses: [String], upstreams: [URL?]) {
        if skipsVerification {
            Terminal.printWarning(TLSHint.insecureWarning)
        }
        if !Self.isLoopback(settings.host) {
            Terminal.printWarning(
                "listening on \(settings.host): recordings and any secrets in them are reachable from the network; use --host 127.0.0.1 to keep them local")
        }
        let lines = addresses.enumerated().map { position, address in
            let upstream = position < upstreams.count ? upstreams[position].map { redactor.redact(url: $0) } : nil
            return "listening on \(address)" + (upstream.map { " for \($0)" } ?? "")
        }
        let text = lines.joined(separator: "\n")
        if outputDescriptor == STDOUT_FILENO {
            Terminal.printLine(text)
        } else {
            StandardStream.error.write(text + "\n")
        }
    }

    /// Adds this run's replays per recording to the store (opened for writing only now, so a
    /// replay without `--track-usage` never touches the file); returns the summary's phrase.
    private func saveUsage(_ session: CassetteSession, sessions: SessionRegistry) async -> String {
        // The sessions' replays count too: a UI-test suite's recordings are served by sessions.
        let counts = session.index.replayCountsByRecording.merging(sessions.usage, uniquingKeysWith: +)
        do throws(CassetteStoreError) {
            let store = try await CassetteStore.open(path: storePath, access: .readWrite)
            do throws(CassetteStoreError) {
                try await store.addUsage(counts)
            } catch {
                try? await store.close()
                throw error
            }
            try await store.close()
            return "usage saved for \(Formatting.count(counts.count, "recording"))"
        } catch {
            Terminal.printError("could not save usage: \(error.message)")
            return "usage not saved"
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "127.0.0.1" || host == "::1" || host == "localhost" || host.hasPrefix("127.")
    }

    /// Graceful stop: no new connections, in-flight requests answered, store closed, summary printed.
    package func stop(_ running: Running) async -> CassetteSession.Counters {
        // Sessions first: their requests in flight are answered while the event loops still run.
        await running.sessions.closeAll()
        await running.server.shutdown()
        running.requestLog?.close()
        do {
            try await running.store.close()
        } catch {
            Terminal.printError(error.message)
        }
        var counters = running.session.statistics
        let unused = settings.sessionsOnly ? [] : running.session.index.statistics.unusedKeys
        let refused = settings.stalePolicy.map { $0.fails ? $0.count : 0 } ?? 0
        var summary = "recorded \(counters.recorded), replayed \(counters.replayed - refused), missed \(counters.missed)"
        if let stale = settings.stalePolicy, stale.count > 0 {
            summary += ", \(stale.fails ? "refused as stale" : "stale") \(stale.count)"
        }
        // A refusal is a miss for --strict, not a replay.
        counters.missed += refused
        counters.replayed -= refused
        if counters.passthrough > 0 { summary += ", passed through \(counters.passthrough)" }
        if tracksUsage { summary += ", " + (await saveUsage(running.session, sessions: running.sessions)) }
        summary += ", unused recordings \(unused.count)"
        var lines = [summary]
        if skipsVerification { lines.append("warning: \(TLSHint.insecureWarning)") }
        if !unused.isEmpty && mode == .replayOnly {
            lines += unused.prefix(10).map { "  unused: \($0)" }
            if unused.count > 10 { lines.append("  … and \(unused.count - 10) more") }
        }
        let text = lines.joined(separator: "\n") + "\n"
        if outputDescriptor == STDOUT_FILENO {
            Terminal.write(Data(text.utf8))
        } else {
            StandardStream.error.write(text)
        }
        return counters
    }
}
