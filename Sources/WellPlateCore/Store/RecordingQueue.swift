import Foundation
import Synchronization

/// One interaction waiting for the transaction that will hold it, and the caller to answer once
/// that transaction has committed (or failed).
struct PendingRecording: Sendable {
    let interaction: Interaction
    /// `replacingRowsUpTo` of `CassetteStore.record`.
    let lastReplacedRow: Int64?
    let continuation: CheckedContinuation<Result<Interaction, CassetteStoreError>, Never>

    /// What it adds to a transaction, for the batch's size cap.
    var byteCount: Int {
        interaction.responseBody.count + (interaction.requestBody?.count ?? 0) + interaction.url.utf8.count
    }
}

/// The group commit's waiting room: recordings that arrive while a transaction is being written
/// wait here and go into the next one together, so a busy recorder pays for one commit per batch
/// instead of one per interaction. At most one commit job is scheduled or running at a time.
final class RecordingQueue: Sendable {
    /// Caps on one transaction: big enough that 64 or more concurrent clients share a commit, small
    /// enough that a batch of large bodies does not hold the write lock (and its callers) for long.
    static let maxBatchCount = 512
    static let maxBatchBytes = 16 * 1024 * 1024

    private struct State {
        var pending: [PendingRecording] = []
        /// A commit job is scheduled or running; it takes whatever is pending when it starts.
        var committing = false
        /// Recordings of the transaction being written.
        var inFlight = 0
        /// Committed (or failed) transactions and the interactions they held, for tests and logs.
        var transactions = 0
        var interactions = 0
    }

    private let state = Mutex(State())

    /// Queues `recording`; true when the caller must schedule a commit job (none was under way).
    func add(_ recording: PendingRecording) -> Bool {
        state.withLock { state in
            state.pending.append(recording)
            guard !state.committing else { return false }
            state.committing = true
            return true
        }
    }

    /// The next transaction's recordings, oldest first: everything pending, up to the caps (at
    /// least one, however large).
    func nextBatch() -> [PendingRecording] {
        state.withLock { state in
            var count = 0
            var bytes = 0
            for recording in state.pending {
                bytes += recording.byteCount
                if count > 0 && (count == Self.maxBatchCount || bytes > Self.maxBatchBytes) { break }
                count += 1
            }
            state.inFlight = count
            if count == state.pending.count {
                defer { state.pending = [] }
                return state.pending
            }
            defer { state.pending.removeFirst(count) }
            return Array(state.pending.prefix(count))
        }
    }

    /// Counts a written (or failed) transaction of `count` recordings.
    func noteTransaction(of count: Int) {
        state.withLock { state in
            state.transactions += 1
            state.interactions += count
            state.inFlight = 0
        }
    }

    /// Called by a commit job once its batch's callers are answered; true when more arrived
    /// meanwhile and the caller must schedule the next job, false when the queue is idle again.
    func finishBatch() -> Bool {
        state.withLock { state in
            if state.pending.isEmpty {
                state.committing = false
                return false
            }
            return true
        }
    }

    /// No transaction is being written and none waits to be.
    var isIdle: Bool {
        state.withLock { !$0.committing }
    }

    /// Recordings waiting for a transaction (not counting one being written).
    var pendingCount: Int {
        state.withLock { $0.pending.count }
    }

    /// Recordings waiting, and those of the transaction being written.
    var waiting: (pending: Int, inFlight: Int) {
        state.withLock { ($0.pending.count, $0.inFlight) }
    }

    /// Transactions written by group commit so far, and the interactions they held.
    var committed: (transactions: Int, interactions: Int) {
        state.withLock { ($0.transactions, $0.interactions) }
    }
}
