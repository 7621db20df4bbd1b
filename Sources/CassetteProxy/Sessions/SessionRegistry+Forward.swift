import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// Sessions of a forward proxy (`--forward`): each is a forward proxy of its own for its
/// cassette, on a free port; the app under test uses `baseURL` as its HTTP(S)_PROXY.
extension SessionRegistry {
    func startForward(_ forward: ForwardServing, cassette: String, mode: RecordMode, proxyBase: String) async throws(ProxyRequestError) -> ProxySession {
        let configuration = configuration
        let store = configuration.store
        let settings = configuration.settings
        let forwards = mode != .replayOnly || settings.missPolicy == .passthrough
        // The proxy's rules key every recording with its origin, as a forward proxy must.
        let options = CassetteSession.Options(
            cassette: cassette, mode: mode, matchingRules: configuration.matchingRules, redactor: configuration.redactor,
            sequencePolicy: configuration.sequencePolicy, upstream: nil)
        let maker = configuration.layout.answerMaker(settings, listener: 0, ports: ListenerPorts(), preparedBase: nil)
        let opened: CassetteSession
        var prepared = PreparedAnswers.empty
        var origins: Set<String> = []
        do {
            if settings.isReplayOnly(mode: mode) {
                let result = try await CassetteSession.open(
                    store: store, options: options, upstream: configuration.upstream, preparing: ResponsePreparer(maker: maker))
                opened = result.session
                prepared = PreparedAnswers(result.answers, maker: maker)
                origins = Set(try await store.recordedOrigins(cassette: cassette))
            } else {
                opened = try await CassetteSession.open(store: store, options: options, upstream: forwards ? configuration.upstream : nil)
            }
        } catch let error as CassetteStoreError {
            throw ProxyRequestError(status: 500, code: "store_failed", message: "cassette \"\(cassette)\" could not be opened: \(error.message)")
        } catch {
            throw ProxyRequestError(status: 500, code: "store_failed", message: "cassette \"\(cassette)\" could not be opened: \(error)")
        }
        // Each host is its own upstream: there is no one upstream to require.
        try await checkUsable(opened, cassette: cassette, mode: mode, forwards: false, upstream: nil)

        let id = newID()
        let journal = SessionJournal(shards: max(1, settings.threads) + 1)
        let pipeline = forward.pipeline(
            session: opened, settings: settings, prepared: prepared, maker: maker, recordedOrigins: origins, journal: journal,
            logLabel: "session \(id)")
        let server: ProxyServer
        do {
            server = try await ProxyServer.start(
                listeners: [ProxyServer.Listener(pipeline: pipeline, host: settings.host, port: 0)], group: group, ownsGroup: false)
        } catch {
            throw ProxyRequestError(status: 500, code: "listen_failed", message: "the session's listener could not start: \(error)")
        }
        let listener = ProxySession.Listener(
            upstream: nil, baseURL: Self.baseURL(host: settings.host, port: server.port, proxyBase: proxyBase), parts: pipeline.router.base.parts)
        return ProxySession(
            id: id, cassette: cassette, mode: mode, listeners: [listener], session: opened, journal: journal, server: server, group: group,
            forwardRouter: pipeline.router)
    }
}
