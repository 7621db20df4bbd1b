import Foundation
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1, for sending bytes no HTTP client would send and for
/// controlling exactly when requests go out. The blocking socket calls run on dedicated threads.
package final class RawConnection: Sendable {
    private let descriptor: Int32
    package let port: Int

    private init(descriptor: Int32, port: Int) {
        self.descriptor = descriptor
        self.port = port
    }

    deinit {
        close(descriptor)
    }

    /// Connects to 127.0.0.1:`port`; every receive gives up after `timeout`.
    package static func connect(port: Int, timeout: Duration = Patience.request) async throws -> RawConnection {
        try await onDedicatedThread {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw failure("socket") }
            var receiveTimeout = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &receiveTimeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                let error = failure("connect to 127.0.0.1:\(port)")
                close(descriptor)
                throw error
            }
            return RawConnection(descriptor: descriptor, port: port)
        }
    }

    /// Sends `text` as UTF-8, exactly as given.
    package func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    package func send(_ bytes: [UInt8]) async throws {
        let descriptor = self.descriptor
        try await Self.onDedicatedThread {
            var unsent = bytes[...]
            while !unsent.isEmpty {
                let sent = unsent.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { throw Self.failure("send") }
                unsent = unsent.dropFirst(sent)
            }
        }
    }

    /// Reads until `isComplete` accepts what arrived, or the peer closes the connection.
    package func receive(until isComplete: @escaping @Sendable ([UInt8]) -> Bool = { _ in false }) async throws -> [UInt8] {
        let descriptor = self.descriptor
        return try await Self.onDedicatedThread {
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            while !isComplete(received) {
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    received.append(contentsOf: chunk[..<count])
                } else if count == 0 || errno == ECONNRESET {
                    break
                } else if errno != EINTR {
                    throw Self.failure("recv (after \(received.count) bytes)")
                }
            }
            return received
        }
    }

    /// Reads until the peer closes the connection.
    package func receiveUntilClosed() async throws -> [UInt8] {
        try await receive()
    }

    /// Reads until the connection ends, and says how: `reset` when the peer's kernel sent a reset
    /// (ECONNRESET) rather than an orderly end; a reset may also have destroyed bytes that had
    /// arrived but were not read yet.
    package func receiveToEnd() async throws -> (bytes: [UInt8], reset: Bool) {
        let descriptor = self.descriptor
        return try await Self.onDedicatedThread {
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    received.append(contentsOf: chunk[..<count])
                } else if count == 0 {
                    return (received, false)
                } else if errno == ECONNRESET {
                    return (received, true)
                } else if errno != EINTR {
                    throw Self.failure("recv (after \(received.count) bytes)")
                }
            }
        }
    }

    private static func onDedicatedThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try work() })
            }
        }
    }

    private static func failure(_ operation: String) -> ChildProcessError {
        ChildProcessError("\(operation) failed: \(String(cString: strerror(errno)))")
    }
}

extension Array where Element == UInt8 {
    /// The bytes as text, for assertions on raw HTTP.
    package var text: String { String(decoding: self, as: UTF8.self) }
}
