import Foundation
import Synchronization

/// The hand-over between the transfer loop's thread, which receives a streamed response, and the
/// one task that reads it. The loop offers each chunk; once `highWater` bytes wait unread the
/// offer is refused, the write callback pauses the transfer, and the reader asks the loop to
/// resume it when it has caught up. All state is in a `Mutex`; continuations are resumed outside it.
final class CurlStreamSink: TransportBodySource {
    private struct State {
        var head: TransportResponseHead?
        var headWaiter: CheckedContinuation<TransportResponseHead, Error>?
        var chunks: [Data] = []
        var nextChunk = 0
        var buffered = 0
        var paused = false
        /// Set once the transfer is over: `nil` error for a complete body.
        var end: Result<Void, Error>?
        var chunkWaiter: CheckedContinuation<Data?, Error>?
    }

    private let state = Mutex(State())
    private let highWater: Int
    /// Ask the loop to resume the paused transfer, or to abort it.
    private let resume: @Sendable () -> Void
    private let cancel: @Sendable () -> Void

    init(highWater: Int, resume: @escaping @Sendable () -> Void, cancel: @escaping @Sendable () -> Void) {
        self.highWater = max(1, highWater)
        self.resume = resume
        self.cancel = cancel
    }

    // MARK: Loop thread

    func deliverHead(_ head: TransportResponseHead) {
        let waiter = state.withLock { state -> CheckedContinuation<TransportResponseHead, Error>? in
            guard state.head == nil, state.end == nil else { return nil }
            state.head = head
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: head)
    }

    var headDelivered: Bool {
        state.withLock { $0.head != nil }
    }

    /// Takes a chunk unless the reader is `highWater` bytes behind; `false` means "pause".
    func offer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let chunk = Data(bytes)
        let waiter = state.withLock { state -> CheckedContinuation<Data?, Error>?? in
            if let waiter = state.chunkWaiter {
                state.chunkWaiter = nil
                return .some(waiter)
            }
            if state.buffered >= highWater {
                state.paused = true
                return nil
            }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            return .some(nil)
        }
        guard let waiter else { return false }
        waiter?.resume(returning: chunk)
        return true
    }

    /// The transfer is over; a head not yet delivered comes from `outcome`.
    func finish(_ outcome: Result<TransportResponseHead, Error>) {
        let (headWaiter, chunkWaiter, head, end) = state.withLock { state in
            if state.head == nil, case .success(let head) = outcome { state.head = head }
            state.end = outcome.map { _ in () }
            let headWaiter = state.headWaiter
            state.headWaiter = nil
            // A waiting reader has no chunks left to take (it would not wait otherwise).
            let chunkWaiter = state.chunkWaiter
            state.chunkWaiter = nil
            return (headWaiter, chunkWaiter, state.head, state.end!)
        }
        if let headWaiter {
            if let head {
                headWaiter.resume(returning: head)
            } else if case .failure(let error) = end {
                headWaiter.resume(throwing: error)
            } else {
                headWaiter.resume(throwing: TransportError(.other, "the transfer ended without a response head"))
            }
        }
        chunkWaiter?.resume(with: end.map { _ in nil })
    }

    // MARK: Reader

    func head() async throws -> TransportResponseHead {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<TransportResponseHead, Error>? in
                if let head = state.head { return .success(head) }
                if case .failure(let error)? = state.end { return .failure(error) }
                state.headWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                var resumesTransfer = false
                let ready = state.withLock { state -> Result<Data?, Error>? in
                    if state.nextChunk < state.chunks.count {
                        // Taken out, not copied: a chunk the array still held would stay in memory.
                        let chunk = state.chunks[state.nextChunk]
                        state.chunks[state.nextChunk] = Data()
                        state.nextChunk += 1
                        state.buffered -= chunk.count
                        if state.nextChunk == state.chunks.count {
                            state.chunks.removeAll(keepingCapacity: true)
                            state.nextChunk = 0
                        } else if state.nextChunk >= 64, state.nextChunk * 2 >= state.chunks.count {
                            // The writer keeps the array from emptying: drop the taken slots.
                            state.chunks.removeFirst(state.nextChunk)
                            state.nextChunk = 0
                        }
                        // Resume at half the limit, so the transfer does not stop and start per chunk.
                        if state.paused, state.buffered <= highWater / 2 {
                            state.paused = false
                            resumesTransfer = true
                        }
                        return .success(chunk)
                    }
                    if let end = state.end { return end.map { nil } }
                    state.chunkWaiter = continuation
                    return nil
                }
                if resumesTransfer { resume() }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            cancel()
        }
    }

    func abandon() {
        let running = state.withLock { $0.end == nil }
        if running { cancel() }
    }
}
