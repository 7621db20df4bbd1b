#if canImport(CCurl)
import Foundation
import Synchronization
import WellPlateCore

/// The hand-over between the transfer loop's thread, which receives a streamed response, and the
/// one task that reads it. The loop offers each chunk; once `highWater` bytes wait unread the
/// offer is refused, the write callback pauses the transfer, and the reader asks the loop to
/// resume it when it has caught up. All state is in a `Mutex`; continuations are resumed outside it.
///
/// A waiting reader is woken once per pass of the loop (`wake()`, after `curl_multi_perform`), not
/// per callback: a small answer's head, body and end usually arrive in the same pass, and waking
/// the reader for each would cost a thread hand-off apiece for what one can carry.
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

        /// Takes the oldest unread chunk; `resumesTransfer` when the reader has caught up with a
        /// paused transfer.
        mutating func takeChunk(highWater: Int) -> (chunk: Data, resumesTransfer: Bool)? {
            guard nextChunk < chunks.count else { return nil }
            // Taken out, not copied: a chunk the array still held would stay in memory.
            let chunk = chunks[nextChunk]
            chunks[nextChunk] = Data()
            nextChunk += 1
            buffered -= chunk.count
            if nextChunk == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                nextChunk = 0
            } else if nextChunk >= 64, nextChunk * 2 >= chunks.count {
                // The writer keeps the array from emptying: drop the taken slots.
                chunks.removeFirst(nextChunk)
                nextChunk = 0
            }
            // Resume at half the limit, so the transfer does not stop and start per chunk.
            guard paused, buffered <= highWater / 2 else { return (chunk, false) }
            paused = false
            return (chunk, true)
        }
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

    /// Keeps the head for the reader; it is woken by the next `wake()` or `finish(_:)`.
    func deliverHead(_ head: TransportResponseHead) {
        state.withLock { state in
            guard state.head == nil, state.end == nil else { return }
            state.head = head
        }
    }

    /// Keeps a chunk unless the reader is `highWater` bytes behind; `false` means "pause" (libcurl
    /// offers the same bytes again once resumed, so they are not copied then).
    func offer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            if state.buffered >= highWater {
                state.paused = true
                return false
            }
            state.chunks.append(Data(bytes))
            state.buffered += bytes.count
            return true
        }
    }

    /// Hands a waiting reader what arrived during the loop's last pass.
    func wake() {
        let (headWaiter, head, chunkWaiter, taken) = state.withLock { state in
            var headWaiter: CheckedContinuation<TransportResponseHead, Error>?
            if state.head != nil {
                headWaiter = state.headWaiter
                state.headWaiter = nil
            }
            var chunkWaiter: CheckedContinuation<Data?, Error>?
            var taken: (chunk: Data, resumesTransfer: Bool)?
            if state.chunkWaiter != nil, let chunk = state.takeChunk(highWater: highWater) {
                chunkWaiter = state.chunkWaiter
                state.chunkWaiter = nil
                taken = chunk
            }
            return (headWaiter, state.head, chunkWaiter, taken)
        }
        if let headWaiter, let head { headWaiter.resume(returning: head) }
        if let chunkWaiter, let taken {
            if taken.resumesTransfer { resume() }
            chunkWaiter.resume(returning: taken.chunk)
        }
    }

    /// The transfer is over; a head not yet delivered comes from `outcome`.
    func finish(_ outcome: Result<TransportResponseHead, Error>) {
        let (headWaiter, chunkWaiter, chunk, head, end) = state.withLock { state in
            if state.head == nil, case .success(let head) = outcome { state.head = head }
            state.end = outcome.map { _ in () }
            let headWaiter = state.headWaiter
            state.headWaiter = nil
            let chunkWaiter = state.chunkWaiter
            state.chunkWaiter = nil
            // A reader waiting for a chunk gets the last one kept since the loop's last wake.
            let chunk = chunkWaiter == nil ? nil : state.takeChunk(highWater: highWater)?.chunk
            return (headWaiter, chunkWaiter, chunk, state.head, state.end!)
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
        if let chunkWaiter {
            if let chunk {
                chunkWaiter.resume(returning: chunk)
            } else {
                chunkWaiter.resume(with: end.map { _ in nil })
            }
        }
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

    package func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                var resumesTransfer = false
                let ready = state.withLock { state -> Result<Data?, Error>? in
                    if let taken = state.takeChunk(highWater: highWater) {
                        resumesTransfer = taken.resumesTransfer
                        return .success(taken.chunk)
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

    /// Whether the reader is suspended in `head()` or `next()`.
    var readerIsWaiting: Bool {
        state.withLock { $0.headWaiter != nil || $0.chunkWaiter != nil }
    }

    func abandon() {
        let running = state.withLock { $0.end == nil }
        if running { cancel() }
    }
}
#endif
