import CassetteTools
import Foundation
import NIOCore
import WellPlateCore
import WellPlateNetworking

/// Everything the proxy server needs to serve: the configuration file's values with the command's
/// flags applied (`ProxyFlags.settings(from:)`, `ReplayFlags.apply(to:)`).
struct ProxySettings: Sendable {
    /// What a replay does when no recording matches.
    enum MissPolicy: String, Sendable, CaseIterable {
        /// Answer with an error status and an explanation.
        case error
        /// Forward upstream without recording.
        case passthrough
        /// Forward upstream and record.
        case record
    }

    /// Extra time before a replayed response is sent.
    enum Latency: Sendable, Equatable {
        case none
        /// Each interaction's recorded upstream duration.
        case recorded
        case fixed(Duration)
    }

    var host: String = "127.0.0.1"
    var port: Int = 8080
    /// Where requests go when they are forwarded; replay-only proxies may have none.
    var upstream: URL?
    var missPolicy: MissPolicy = .error
    /// The status of a miss response.
    var missStatus: Int = 404
    var latency: Latency = .none
    var maxBodySize: Int = 64 * 1024 * 1024
    /// How forwarded requests are verified over HTTPS.
    var tls = TLSConfiguration()
    /// How long one forwarded request may take.
    var upstreamTimeout: Duration = .seconds(30)
    /// Serve absolute URLs that lead back to the upstream (`Location`, `Link`, ...) pointing at
    /// the proxy; `--no-rewrite-urls` turns it off.
    var rewritesUpstreamURLs = true
    /// Also inside JSON bodies (`--rewrite-body-urls`), which are then no longer byte-exact.
    var rewritesBodyURLs = false
    /// Print one line per request.
    var logRequests: Bool = true
    /// `--max-age`: what happens to replies from old recordings; `nil` checks nothing.
    var stalePolicy: StalePolicy?
    /// Which forwarded responses are sent on as they arrive (the rest are forwarded whole).
    var streaming = CassetteSession.StreamingPolicy()
    /// How far recordings survive: process crashes (`normal`) or power loss too (`full`).
    var durability: CassetteStore.Durability = .normal
    /// Event-loop threads; one per core by default.
    var threads: Int = System.coreCount

    /// The replay latency these settings ask for, given a recording's duration.
    func replayDelay(recorded: Duration) -> Duration {
        switch latency {
        case .none: .zero
        case .recorded: recorded
        case .fixed(let fixed): fixed
        }
    }
}
