import CassetteKernel
import Synchronization

/// The ports of a multi-host proxy's listeners, in upstream order, known once all of them are
/// bound: a URL that leads to another upstream is served pointing at that upstream's listener, on
/// the host the client used to reach this one. Set once, right after binding and before the
/// `listening on` lines; a request answered before that (none is expected, no client knows the
/// address yet) leaves other upstreams' URLs as they are.
package final class ListenerPorts: Sendable {
    private let ports = Mutex<[Int]>([])

    package func set(_ bound: [Int]) {
        ports.withLock { $0 = bound }
    }

    /// `http://HOST:PORT` of listener `index` for a client that reached another listener at
    /// `proxyBase` (`http://HOST[:PORT]`); `nil` while the ports are not known.
    package func base(of index: Int, reachedAt proxyBase: String) -> String? {
        guard let port = ports.withLock({ index < $0.count ? $0[index] : nil }) else { return nil }
        return "http://\(Self.host(of: proxyBase)):\(port)"
    }

    /// The host of `http://HOST[:PORT]`, an IPv6 address kept in its brackets.
    package static func host(of proxyBase: String) -> Substring {
        var authority = proxyBase[...]
        if let scheme = authority.range(of: "://") { authority = authority[scheme.upperBound...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return authority[...close]
        }
        if let colon = authority.lastIndex(of: ":") { return authority[..<colon] }
        return authority
    }
}
