import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server could not listen on the requested address.
struct BindError: Error, CustomStringConvertible {
    let host: String
    let port: Int
    let underlying: any Error

    var description: String {
        "sample-api: cannot listen on \(host):\(port): \(reason)"
    }

    private var reason: String {
        switch underlying {
        case let error as IOError where error.errnoCode == EADDRINUSE:
            return "address already in use; pick another --port (0 picks a free one) or stop the process using it"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode))
        case is SocketAddressError, is SocketAddressError.UnknownHost:
            return "'\(host)' does not resolve to an address of this machine; pass an IP address such as 127.0.0.1 with --host"
        default:
            return "\(underlying)"
        }
    }
}
