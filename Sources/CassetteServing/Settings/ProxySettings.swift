import CassetteKernel
import Foundation
import NIOCore
import WellPlateCore
import WellPlateNetworking

/// Everything the proxy server needs to serve: the configuration file's values with the command's
/// flags applied (`ProxyFlags.settings(from:)`, `ReplayFlags.apply(to:)`).
package struct ProxySettings: Sendable {
    /// Extra time before a replayed response is sent.
    package enum Latency: Sendable, Equatable {
        case none
        /// Each interaction's recorded upstream duration.
        case recorded
        case fixed(Duration)
    }

    package init() {}

    package var host: String = "127.0.0.1"
    package var port: Int = 8080
    /// Where requests go when they are forwarded; replay-only proxies may have none.
    package var upstream: URL?
    /// Two or more: one listener per upstream, all serving one multi-host cassette
    /// (`UpstreamLayout`); `upstream` is then the first.
    package var upstreams: [ProxyUpstream] = []
    /// `--forward`: a forward proxy for every host its clients call, instead of a reverse proxy
    /// for `upstream`.
    package var forward: ForwardOptions?
    /// The status of a miss response.
    package var missStatus: Int = 404
    package var latency: Latency = .none
    package var maxBodySize: Int = 64 * 1024 * 1024
    /// How forwarded requests are verified over HTTPS.
    package var tls = TLSConfiguration()
    /// How long one forwarded request may take.
    package var upstreamTimeout: Duration = .seconds(30)
    /// Serve absolute URLs that lead back to the upstream (`Location`, `Link`, ...) pointing at
    /// the proxy; `--no-rewrite-urls` turns it off.
    package var rewritesUpstreamURLs = true
    /// Also inside JSON bodies (`--rewrite-body-urls`), which are then no longer byte-exact.
    package var rewritesBodyURLs = false
    /// Print one line per request.
    package var logRequests: Bool = true
    /// `--max-age`: what happens to replies from old recordings; `nil` checks nothing.
    package var stalePolicy: StalePolicy?
    /// Which forwarded responses are sent on as they arrive (the rest are forwarded whole).
    package var streaming = CassetteSession.StreamingPolicy()
    /// How far recordings survive: process crashes (`normal`) or power loss too (`full`).
    package var durability: CassetteStore.Durability = .normal
    /// `--max-sessions`: how many sessions (`POST /__cassette/sessions`) may be open at once.
    package var maxSessions = 64
    /// `--session-idle-timeout`: a session that serves nothing for this long is closed.
    package var sessionIdleTimeout: Duration = .seconds(600)
    /// `--sessions-only`: the main port serves sessions (`X-Cassette-Session`) and the control
    /// endpoints only; its own cassette is neither served nor needed.
    package var sessionsOnly = false
    /// Credential shapes replaced in WebSocket messages before they are stored (`cassette audit`'s
    /// scanner, which the command hands in: this target does not link the tools).
    package var messageSecretShapes = MessageSecretShapes.none
    /// WebSocket conversations: replay timing and the largest message accepted.
    package var webSocket = WebSocketOptions()
    /// gRPC calls: the message limit and the descriptors (`GRPCModule`).
    package var grpc = GRPCOptions()
    /// Event-loop threads; one per core by default.
    package var threads: Int = System.coreCount
}
