import CassetteKernel
import Foundation
import WellPlateCore
import WellPlateNetworking

/// The listeners of one proxy and the upstream each stands in for. One listener, as always, for
/// one upstream; one per upstream, in the order given, for several (`--upstream` repeated, an
/// environment's `"upstreams"`); and a replay given none lays out the recorded hosts of a
/// multi-host cassette, in the order each was first recorded.
package struct UpstreamLayout: Sendable {
    package struct Listener: Sendable {
        /// `nil` for a replay of a cassette that does not say where it was recorded from.
        package let upstream: URL?
        package let port: Int
        package let tls: TLSConfiguration
    }

    package let listeners: [Listener]

    /// Several listeners: keys carry their origin and URLs lead from one listener to another.
    package var isMultiHost: Bool { listeners.count > 1 }

    package init(listeners: [Listener]) {
        self.listeners = listeners
    }

    /// `saved`: the cassette as stored, if it exists; `recordedOrigins` reads its hosts in the
    /// order first recorded (asked only when nothing else says which listeners to open).
    package init(settings: ProxySettings, saved: CassetteInfo?, recordedOrigins: () async throws -> [String]) async rethrows {
        if settings.forward != nil {
            // A forward proxy: one listener, every host behind it.
            listeners = [Listener(upstream: nil, port: settings.port, tls: settings.tls)]
            return
        }
        if settings.upstreams.count > 1 {
            listeners = settings.upstreams.enumerated().map { position, upstream in
                Listener(upstream: upstream.url, port: upstream.port ?? Self.port(settings.port, position), tls: upstream.tls ?? settings.tls)
            }
            return
        }
        if let upstream = settings.upstream ?? settings.upstreams.first?.url {
            let only = settings.upstreams.first
            listeners = [Listener(upstream: upstream, port: only?.port ?? settings.port, tls: only?.tls ?? settings.tls)]
            return
        }
        let known = saved?.upstreams ?? []
        guard let saved, saved.isMultiHost else {
            listeners = [Listener(upstream: known.first, port: settings.port, tls: settings.tls)]
            return
        }
        let origins = try await recordedOrigins()
        guard origins.count > 1 else {
            listeners = [Listener(upstream: known.first ?? origins.first.flatMap(URL.init(string:)), port: settings.port, tls: settings.tls)]
            return
        }
        listeners = origins.enumerated().map { position, origin in
            // The base path comes from the upstream as given when recording; a host recorded
            // without one (the cassette predates its list) is served at its root.
            let upstream = known.first { CassetteInfo.origin(of: $0) == origin } ?? URL(string: origin)
            return Listener(upstream: upstream, port: Self.port(settings.port, position), tls: settings.tls)
        }
    }

    /// `--port 0` picks a free port for every listener; `--port N` gives them N, N+1, ...
    private static func port(_ first: Int, _ position: Int) -> Int {
        first == 0 ? 0 : first + position
    }
}
