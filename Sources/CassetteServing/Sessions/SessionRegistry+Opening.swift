import CassetteKernel
import Foundation
import NIOCore
import WellPlateCore
import WellPlateNetworking

/// Opening a session: the cassette in its mode, then a listener of its own on a free port.
extension SessionRegistry {
    /// Opens `cassette` in `requestedMode` (the proxy's own when `nil`) and starts serving it.
    /// `proxyBase`: the main port as the caller reached it, whose host names the session's
    /// address when the proxy listens on every interface.
    package func open(cassette: String, requestedMode: RecordMode?, proxyBase: String) async throws(ProxyRequestError) -> ProxySession {
        let policy = try sessionPolicy(requestedMode)
        try reserve()
        let session: ProxySession
        do {
            session = try await start(cassette: cassette, policy: policy, proxyBase: proxyBase)
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

    /// The policy a session opens with. Recording needs a store opened for writing and an
    /// upstream: `record`, or `replay --upstream URL --on-miss record`. With `--on-miss record`,
    /// `none` records its misses, as the proxy's own cassette does.
    package func sessionPolicy(_ requested: RecordMode?) throws(ProxyRequestError) -> ServingPolicy {
        let policy = configuration.policy.session(mode: requested)
        let context = configuration.context
        if !policy.asksToReplay && (context.upstream == nil || context.store.access != .readWrite) {
            throw ProxyRequestError(
                status: 400, code: "mode_not_allowed",
                message:
                    "this proxy only replays, so a session cannot use mode \"\(policy.requestedMode.rawValue)\"; use mode \"none\", or start the proxy with `cassette record` (or `cassette replay --upstream URL --on-miss record`) to let sessions record"
            )
        }
        return policy
    }

    private func start(cassette: String, policy: ServingPolicy, proxyBase: String) async throws(ProxyRequestError) -> ProxySession {
        let served: ServedCassette
        do {
            served = try await ServedCassette.open(
                cassette, policy: policy, role: .session(proxyLayout: configuration.layout, proxySettings: configuration.settings),
                context: configuration.context)
        } catch {
            throw error.requestError
        }
        let settings = served.settings
        let id = newID()
        // A shard per event loop plus one, as the request log numbers them.
        let journal = SessionJournal(shards: max(1, settings.threads) + 1)
        let label = "session \(id)"
        let forwardRouter: (any HostRouting)?
        let pipelines: [any ConnectionPipeline]
        let parts: [ServingResponder]
        if let forward = configuration.forward {
            let listener = served.forwardListener(forward, journal: journal, logLabel: label)
            forwardRouter = listener.hosts
            pipelines = [listener.pipeline]
            parts = [listener.base]
        } else {
            let reverse = served.reversePipelines(journal: journal, logLabel: label)
            forwardRouter = nil
            pipelines = reverse
            parts = reverse.map(\.parts)
        }
        let server: ProxyServer
        do {
            server = try await ProxyServer.start(
                listeners: pipelines.map { ProxyServer.Listener(pipeline: $0, host: settings.host, port: 0) }, group: group, ownsGroup: false)
        } catch {
            throw ProxyRequestError(status: 500, code: "listen_failed", message: "the session's listener could not start: \(error)")
        }
        served.ports.set(server.ports)
        let redactor = configuration.context.redactor
        let listeners = parts.indices.map { position in
            ProxySession.Listener(
                upstream: forwardRouter == nil ? served.layout.listeners[position].upstream.map { redactor.redact(url: $0) } : nil,
                baseURL: Self.baseURL(host: settings.host, port: server.ports[position], proxyBase: proxyBase), parts: parts[position])
        }
        return ProxySession(
            id: id, cassette: cassette, mode: served.session.options.policy.mode, listeners: listeners, session: served.session, journal: journal,
            server: server, group: group, forwardRouter: forwardRouter, conversations: served.conversations)
    }

    /// `http://HOST:PORT` for the session's listener: the proxy's host, or the one the caller
    /// reached the main port by when the proxy listens on every interface.
    package static func baseURL(host: String, port: Int, proxyBase: String) -> String {
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
