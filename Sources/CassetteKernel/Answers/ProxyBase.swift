import NIOCore
import NIOHTTP1
import WellPlateCore

/// The proxy's own address as one client reached it, `http://HOST:PORT`: what upstream URLs are
/// rewritten to (`UpstreamURLRewriter`). The request's `Host` when it is a plain host and port,
/// else the local address of its connection (never the listening address itself, which may be
/// 0.0.0.0).
package enum ProxyBase {
    package static func of(_ head: HTTPRequestHead, localAddress: SocketAddress?) -> String {
        if let host = head.headers.first(name: "host"), isPlainAuthority(host) {
            return "http://" + host
        }
        return local(localAddress)
    }

    /// The connection's local address as a base.
    private static func local(_ localAddress: SocketAddress?) -> String {
        guard let localAddress, let ip = localAddress.ipAddress, let port = localAddress.port else {
            return "http://127.0.0.1"
        }
        return ip.contains(":") ? "http://[\(ip)]:\(port)" : "http://\(ip):\(port)"
    }

    /// The listener's own address as this client reached it: the request's `Host` when it names
    /// the listener's port (`localhost:8080`), else the connection's local address. Unlike `of`,
    /// never the upstream a forward proxy's request names in its `Host`.
    package static func own(_ head: HTTPRequestHead, localAddress: SocketAddress?) -> String {
        guard let port = localAddress?.port, let host = head.headers.first(name: "host"), isPlainAuthority(host), host.hasSuffix(":\(port)") else {
            return local(localAddress)
        }
        return "http://" + host
    }

    /// The base answers are prepared for at start-up: the configured address, when it names one
    /// port on one interface (not a free port picked at bind time, nor every interface).
    package static func prepared(host: String, port: Int) -> String? {
        guard port != 0, host != "0.0.0.0", host != "::", isPlainAuthority(host) else { return nil }
        return host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }

    /// Letters, digits and `.-_:[]` only: a value that goes into response headers unchanged.
    private static func isPlainAuthority(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                case UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
                    true
                default:
                    false
                }
            }
    }
}
