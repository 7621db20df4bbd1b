import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether this machine has an IPv6 loopback (`::1`) a server can listen on: containers are
/// often started without one. Tests of IPv6 upstreams are enabled by it, and say so when skipped.
package enum IPv6Loopback {
    package static let isAvailable: Bool = {
        let socket = Glibc.socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        address.sin6_port = 0
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }()
}
