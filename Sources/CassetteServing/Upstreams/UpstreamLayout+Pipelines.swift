import CassetteKernel
import Foundation
import WellPlateCore
import WellPlateNetworking

/// The reverse proxy's connection setup per listener, shared by the main port and by sessions,
/// which lay out the same listeners (one per upstream) for their own cassette.
extension UpstreamLayout {
    /// The served settings as listener `position` uses them: its upstream and its TLS.
    package func settings(_ served: ProxySettings, listener position: Int) -> ProxySettings {
        var settings = served
        settings.upstream = listeners[position].upstream ?? served.upstream
        settings.tls = listeners[position].tls
        return settings
    }

    /// How recordings become answers with `settings` on listener `listener`; `preparedBase`: the
    /// address answers that lead back to the upstream are made for, when it is known before binding.
    package func answerMaker(_ settings: ProxySettings, listener: Int, ports: ListenerPorts, preparedBase: String?) -> ReplayAnswerMaker {
        let rewriter: UpstreamURLRewriter?
        if isMultiHost {
            let upstreams = listeners.map { $0.upstream ?? URL(string: "http://upstream.invalid")! }
            rewriter =
                settings.rewritesUpstreamURLs
                ? UpstreamURLRewriter(upstreams: upstreams, own: listener, ports: ports, rewritesBodies: settings.rewritesBodyURLs) : nil
        } else {
            rewriter = UpstreamURLRewriter(settings: settings, upstream: settings.upstream)
        }
        return ReplayAnswerMaker(settings: settings, upstreamURLs: rewriter, preparedBase: preparedBase)
    }

    /// A multi-host recording keeps every upstream with the cassette (`CassetteInfo.upstreams`),
    /// so a later replay lays out the same listeners with the same base paths.
    package func remember(in store: CassetteStore, cassette: String) async throws {
        guard isMultiHost, var info = try await store.cassette(named: cassette) else { return }
        let column = CassetteInfo.upstreamColumn(known: info.upstreams, adding: listeners.compactMap(\.upstream))
        guard column != info.upstream else { return }
        info.upstream = column
        try await store.saveCassette(info)
    }
}
