import Foundation
import Synchronization
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// A loopback server that reads each request's head and never answers: for tests of what a client
/// does while its request is in flight. `requestArrived()` returns once a whole request head has
/// been read, so a test acts when the request is at the server rather than after a guessed sleep.
package final class HoldingServer: Sendable {
    package let port: Int
    private let listener: Int32
    private let arrivals: AsyncStream<Void>
    private let arrived: AsyncStream<Void>.Continuation
    /// Accepted connections, held open until `stop()`.
    private let held = Mutex<[Int32]>([])

    package init() throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        port = try Ports.bindLoopback(listener)
        guard listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        // accept and recv block: they run on a thread of their own, never on the cooperative pool.
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    package var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Waits until one more request head has been read.
    package func requestArrived() async {
        var iterator = arrivals.makeAsyncIterator()
        _ = await iterator.next()
    }

    /// Stops accepting and closes every held connection.
    package func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in held.withLock({ $0 }) {
            shutdown(fd, Int32(SHUT_RDWR))
        }
        arrived.finish()
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { break }
            held.withLock { $0.append(connection) }
            if readRequestHead(connection) {
                arrived.yield()
            }
        }
        close(listener)
        // The connections close here, after the listener: `stop()` only shut them down, so no
        // descriptor number is reused while this thread still reads from it.
        held.withLock { fds in
            fds.forEach { close($0) }
            fds.removeAll()
        }
    }

    /// Reads until the blank line that ends a request head; false when the peer left first.
    private func readRequestHead(_ fd: Int32) -> Bool {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            received += buffer.prefix(count)
        }
        return true
    }
}

/// Runs `body` with a fresh `HoldingServer`, stopped afterwards.
package func withHoldingServer<Result>(_ body: (HoldingServer) async throws -> Result) async throws -> Result {
    let server = try HoldingServer()
    defer { server.stop() }
    return try await body(server)
}
