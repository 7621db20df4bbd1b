import Foundation
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

package enum Ports {
    /// Runs `body` with a loopback port that refuses connections: the port stays bound (but not
    /// listening) until `body` returns, so no server started in parallel can take it meanwhile.
    package static func withRefusingPort<R>(_ body: (Int) async throws -> R) async throws -> R {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        let port = try bindLoopback(fd)
        return try await body(port)
    }

    package static func bindLoopback(_ fd: Int32) throws -> Int {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
