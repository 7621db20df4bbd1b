import CassetteKernel
import CassetteServing
import Foundation
import NIOHTTP1
import Synchronization
import WellPlateCore
import WellPlateNetworking

/// What the forward proxy does with each host its clients ask for: intercept it (record or
/// replay, HTTPS through a certificate from the local authority), pass it on untouched, or
/// refuse it; and, per host, the pipeline that serves it, made on first use and kept.
package final class ForwardRouter: HostRouting {
    package enum Decision: Equatable {
        case intercept
        /// Tunnelled as it is (CONNECT) or forwarded without recording (plain HTTP).
        case passOn(reason: String)
        case refuse(status: Int, reason: String)
    }

    package let options: ForwardOptions
    package let leaves: LeafCertificates
    /// `replay --forward`: nothing is forwarded anywhere.
    package let replayOnly: Bool
    /// The origins the cassette has recordings of (asked only when replaying).
    package let recordedOrigins: Set<String>
    package let cassette: String
    package let missStatus: Int
    package let log: ProxyLog
    /// The listener's own parts: its endpoints, and the refusal of `/path` targets.
    package let base: ServingPipeline
    private let makePipeline: @Sendable (_ origin: URL, _ records: Bool) -> ServingPipeline
    private let pipelines = Mutex<[String: ServingPipeline]>([:])
    private let noted = Mutex<Set<String>>([])

    package init(
        options: ForwardOptions, leaves: LeafCertificates, replayOnly: Bool, recordedOrigins: Set<String>, cassette: String, missStatus: Int, log: ProxyLog,
        base: ServingPipeline, makePipeline: @escaping @Sendable (URL, Bool) -> ServingPipeline
    ) {
        self.options = options
        self.leaves = leaves
        self.replayOnly = replayOnly
        self.recordedOrigins = recordedOrigins
        self.cassette = cassette
        self.missStatus = missStatus
        self.log = log
        self.base = base
        self.makePipeline = makePipeline
    }

    /// `https://host[:port]` as keys spell it.
    package static func origin(scheme: String, host: String, port: Int) -> String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let url = URL(string: "\(scheme)://\(bracketed):\(port)")
        return url.flatMap(CassetteInfo.origin(of:)) ?? "\(scheme)://\(bracketed):\(port)"
    }

    /// What a `CONNECT host:port` gets.
    package func decide(host: String, port: Int) -> Decision {
        let exclusion = options.exclusion(of: host)
        guard replayOnly else { return exclusion.map { .passOn(reason: $0) } ?? .intercept }
        if let exclusion {
            return .refuse(status: missStatus, reason: "\(host):\(port) is never recorded (\(exclusion)), and `cassette replay --forward` forwards nothing")
        }
        // Which of the two the tunnel carries is known only from its first byte (TLS or a
        // plain `ws://` handshake): either recorded origin lets it in.
        let origin = Self.origin(scheme: "https", host: host, port: port)
        guard recordedOrigins.contains(origin) || recordedOrigins.contains(Self.origin(scheme: "http", host: host, port: port)) else {
            return .refuse(
                status: missStatus,
                reason:
                    "cassette \"\(cassette)\" has no recordings of \(origin), and `cassette replay --forward` forwards nothing; record it with `cassette record --forward`"
            )
        }
        return .intercept
    }

    /// The pipeline serving `origin`: recording (or replaying) it, or with `records: false`
    /// forwarding it as it is.
    package func pipeline(origin: String, records: Bool) -> ServingPipeline {
        let key = (records ? "r " : "p ") + origin
        if let known = pipelines.withLock({ $0[key] }) { return known }
        let made = makePipeline(URL(string: origin)!, records)
        return pipelines.withLock { stored in
            if let first = stored[key] { return first }
            stored[key] = made
            return made
        }
    }

    /// The parts answering a request on the proxy's own listener: an absolute-form request
    /// (`GET http://host/path`) is its host's; anything else (`nil`) the listener's own (its
    /// endpoints, and a clear refusal of a `/path` target).
    package func responder(for head: HTTPRequestHead) -> ServingResponder? {
        hostPipeline(for: head)?.parts
    }

    /// The pipeline of the host an absolute-form request names; `nil` for a `/path` target.
    package func hostPipeline(for head: HTTPRequestHead) -> ServingPipeline? {
        guard !head.uri.hasPrefix("/"), let url = URL(string: head.uri), let host = url.host(percentEncoded: false), !host.isEmpty,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let origin = CassetteInfo.origin(of: url)
        else { return nil }
        let exclusion = replayOnly ? nil : options.exclusion(of: host)
        if let exclusion {
            note("\(origin) forwarded as it is, not recorded (\(exclusion))", once: "plain " + origin)
        }
        return pipeline(origin: origin, records: exclusion == nil)
    }

    /// The parts serving `origin` (`https://host:port`) as a request of that host reaching this
    /// router would be served: a session's, for a request routed to it by `X-Cassette-Session`
    /// on the main forward proxy.
    package func responder(origin: String) -> ServingResponder {
        let host = URL(string: origin)?.host(percentEncoded: false) ?? ""
        return pipeline(origin: origin, records: replayOnly || options.exclusion(of: host) == nil).parts
    }

    /// A line on the request log, once per `key`.
    package func note(_ line: String, once key: String) {
        guard noted.withLock({ $0.insert(key).inserted }) else { return }
        log.warn(line)
    }
}
