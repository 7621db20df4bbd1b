import CassetteTools
import Foundation
import NIOCore
import WellPlateCore
import WellPlateNetworking

/// Opening a session: the cassette in its mode, then a listener of its own on a free port.
extension SessionRegistry {
    /// Opens `cassette` in `requestedMode` (the proxy's own when `nil`) and starts serving it.
    /// `proxyBase`: the main port as the caller reached it, whose host names the session's
    /// address when the proxy listens on every interface.
    func open(cassette: String, requestedMode: RecordMode?, proxyBase: String) async throws(ProxyRequestError) -> ProxySession {
        let mode = try sessionMode(requestedMode)
        try reserve()
        let session: ProxySession
        do {
            session = try await start(cassette: cassette, mode: mode, proxyBase: proxyBase)
        } catch {
            release()
            throw error
        }
        guard register(session) else {
            await session.close()
            throw ProxyRequestError(status: 503, code: "shutting_down", message: "the proxy is shutting down; start a new one to open sessions")
        }
        return session
    }

    /// The mode a session opens in. Recording needs a store opened for writing and an upstream:
    /// `record`, or `replay --upstream URL --on-miss record`. With `--on-miss record`, `none`
    /// records its misses, as the proxy's own cassette does.
    func sessionMode(_ requested: RecordMode?) throws(ProxyRequestError) -> RecordMode {
        let mode = requested ?? configuration.defaultMode
        let settings = configuration.settings
        if mode != .replayOnly && (configuration.upstream == nil || configuration.store.access != .readWrite) {
            throw ProxyRequestError(
                status: 400, code: "mode_not_allowed",
                message:
                    "this proxy only replays, so a session cannot use mode \"\(mode.rawValue)\"; use mode \"none\", or start the proxy with `cassette record` (or `cassette replay --upstream URL --on-miss record`) to let sessions record"
            )
        }
        return mode == .replayOnly && settings.missPolicy == .record ? .missing : mode
    }

    private func start(cassette: String, mode: RecordMode, proxyBase: String) async throws(ProxyRequestError) -> ProxySession {
        if let forward = configuration.forward {
            return try await startForward(forward, cassette: cassette, mode: mode, proxyBase: proxyBase)
        }
        let configuration = configuration
        let store = configuration.store
        var settings = configuration.settings
        let forwards = mode != .replayOnly || settings.missPolicy == .passthrough
        let opened: CassetteSession
        var prepared = PreparedAnswers.empty
        let ports = ListenerPorts()
        let layout: UpstreamLayout
        do {
            layout = try await Self.layout(of: cassette, configuration: configuration)
            if !layout.isMultiHost { settings.upstream = layout.listeners[0].upstream }
            var rules = configuration.matchingRules
            if layout.isMultiHost && rules?.includeHost != true {
                // Several hosts in one cassette: keys carry their origin, as on a multi-host proxy.
                let saved = try await store.cassette(named: cassette)?.matchingRules
                var multiHost = rules ?? saved ?? .default
                multiHost.includeHost = true
                rules = multiHost
            }
            let options = CassetteSession.Options(
                cassette: cassette, mode: mode, matchingRules: rules, redactor: configuration.redactor,
                sequencePolicy: configuration.sequencePolicy, upstream: mode != .replayOnly && !layout.isMultiHost ? settings.upstream : nil)
            if settings.isReplayOnly(mode: mode) {
                // Made for no fixed address: each answer leading back to the upstream is
                // rewritten for the address its client used, this session's own or the main port.
                let maker = layout.answerMaker(layout.settings(settings, listener: 0), listener: 0, ports: ports, preparedBase: nil)
                let result = try await CassetteSession.open(
                    store: store, options: options, upstream: configuration.upstream, preparing: ResponsePreparer(maker: maker))
                opened = result.session
                prepared = PreparedAnswers(result.answers, maker: maker)
            } else {
                opened = try await CassetteSession.open(store: store, options: options, upstream: forwards ? configuration.upstream : nil)
            }
            if forwards && layout.isMultiHost {
                try await layout.remember(in: store, cassette: cassette)
            }
        } catch let error as CassetteStoreError {
            throw ProxyRequestError(status: 500, code: "store_failed", message: "cassette \"\(cassette)\" could not be opened: \(error.message)")
        } catch {
            throw ProxyRequestError(status: 500, code: "store_failed", message: "cassette \"\(cassette)\" could not be opened: \(error)")
        }
        try await checkUsable(opened, cassette: cassette, mode: mode, forwards: forwards, upstream: layout.listeners[0].upstream)

        let id = newID()
        // A shard per event loop plus one, as the request log numbers them.
        let journal = SessionJournal(shards: max(1, settings.threads) + 1)
        let pipelines = layout.pipelines(
            session: opened, served: settings, prepared: prepared, ports: ports, modeName: configuration.modeName,
            requestLog: configuration.requestLog, journal: journal, logLabel: "session \(id)")
        let server: ProxyServer
        do {
            server = try await ProxyServer.start(
                listeners: pipelines.map { ProxyServer.Listener(pipeline: $0, host: settings.host, port: 0) }, group: group, ownsGroup: false)
        } catch {
            throw ProxyRequestError(status: 500, code: "listen_failed", message: "the session's listener could not start: \(error)")
        }
        ports.set(server.ports)
        let redactor = configuration.redactor
        let listeners = layout.listeners.indices.map { position in
            ProxySession.Listener(
                upstream: layout.listeners[position].upstream.map { redactor.redact(url: $0) },
                baseURL: Self.baseURL(host: settings.host, port: server.ports[position], proxyBase: proxyBase), parts: pipelines[position].parts)
        }
        return ProxySession(
            id: id, cassette: cassette, mode: mode, listeners: listeners, session: opened, journal: journal, server: server, group: group)
    }

    /// The listeners a session lays out: the proxy's when it was given upstreams, else the hosts
    /// this cassette was recorded from (one, or one per host of a multi-host cassette), else the
    /// proxy's own cassette's. Its base path decides the keys, so it is the cassette's own.
    private static func layout(of cassette: String, configuration: Configuration) async throws -> UpstreamLayout {
        let store = configuration.store
        let saved = try await store.cassette(named: cassette)
        let own = try await UpstreamLayout(settings: configuration.given, saved: saved) { try await store.recordedOrigins(cassette: cassette) }
        if !own.isMultiHost && own.listeners[0].upstream == nil {
            return UpstreamLayout(listeners: configuration.layout.listeners.map { UpstreamLayout.Listener(upstream: $0.upstream, port: 0, tls: $0.tls) })
        }
        return own
    }

    /// Refuses a cassette that has nothing to replay in a mode that only replays, and forwarding
    /// without an upstream.
    func checkUsable(_ session: CassetteSession, cassette: String, mode: RecordMode, forwards: Bool, upstream: URL?) async throws(ProxyRequestError) {
        if forwards && upstream == nil {
            throw ProxyRequestError(
                status: 400, code: "no_upstream",
                message:
                    "cassette \"\(cassette)\" does not say where it was recorded from and the proxy has no --upstream, so the session cannot forward; start the proxy with --upstream URL"
            )
        }
        guard mode == .replayOnly, session.index.interactionCount == 0 else { return }
        let others = ((try? await configuration.store.cassettes()) ?? []).filter { $0.interactionCount > 0 }.map(\.name)
        let known = others.isEmpty ? "the store holds no recordings" : "cassettes with recordings: \(others.prefix(20).joined(separator: ", "))"
        throw ProxyRequestError(
            status: 404, code: "unknown_cassette",
            message:
                "cassette \"\(cassette)\" has no recordings in \(configuration.store.path) (\(known)); record it first with mode \"once\" or \"missing\" on a proxy that records, or check the name"
        )
    }

    /// `http://HOST:PORT` for the session's listener: the proxy's host, or the one the caller
    /// reached the main port by when the proxy listens on every interface.
    static func baseURL(host: String, port: Int, proxyBase: String) -> String {
        var shown = host
        if host == "0.0.0.0" || host == "::" {
            let authority = proxyBase.dropFirst("http://".count)
            if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
                shown = String(authority[...close])
            } else {
                shown = String(authority.split(separator: ":", maxSplits: 1).first ?? "127.0.0.1")
            }
        } else if host.contains(":") {
            shown = "[\(host)]"
        }
        return "http://\(shown):\(port)"
    }
}
