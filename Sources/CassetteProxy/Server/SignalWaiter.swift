import Dispatch
import Foundation
import Synchronization
import WellPlateCore
import WellPlateNetworking

/// Turns SIGINT and SIGTERM into an awaitable event, so the proxy can shut down gracefully
/// instead of dying with requests in flight.
package final class SignalWaiter: Sendable {
    /// Kept only to stay alive (and be cancelled); the mutex makes the class Sendable.
    private let sources: Mutex<[any DispatchSourceSignal]>
    private let stream: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation

    package init(signals: [Int32] = [SIGINT, SIGTERM]) {
        (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let continuation = continuation
        sources = Mutex(
            signals.map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { continuation.yield(number) }
                source.resume()
                return source
            })
    }

    /// Returns the first signal received (or nil if `cancel()` came first).
    package func next() async -> Int32? {
        for await number in stream { return number }
        return nil
    }

    /// Makes a pending `next()` return nil.
    package func cancel() {
        continuation.finish()
    }

    deinit {
        sources.withLock { $0.forEach { $0.cancel() } }
    }
}
