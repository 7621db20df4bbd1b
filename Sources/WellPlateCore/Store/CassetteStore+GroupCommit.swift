import Foundation

/// Group commit: interactions recorded while a transaction is being written wait in the
/// `RecordingQueue` and go into the next transaction together. Each caller is answered only after
/// the transaction holding its interaction has committed, so the guarantee of `record` stays
/// exact: nothing answered is lost to a crash.
extension CassetteStore {
    /// Schedules a commit job on the store's queue (never the cooperative pool: the job blocks in
    /// SQLite). Called with the queue's word that no other job is scheduled.
    nonisolated func scheduleGroupCommit() {
        executor.queue.async { [self] in
            // The queue is this actor's executor, so the job runs isolated to it.
            assumeIsolated { $0.runCommitJob() }
        }
    }

    private func runCommitJob() {
        writeBatch(recordingQueue.nextBatch())
        // Scheduled anew rather than looping, so reads and other writes queued meanwhile get
        // their turn between batches.
        if recordingQueue.finishBatch() {
            scheduleGroupCommit()
        }
    }

    /// Writes everything still waiting, before the connection closes.
    func commitWaitingRecordings() {
        while recordingQueue.pendingCount > 0 {
            writeBatch(recordingQueue.nextBatch())
        }
    }

    /// Writes `batch` in one transaction, in order, then answers each caller with its stored
    /// interaction or its failure.
    private func writeBatch(_ batch: [PendingRecording]) {
        guard !batch.isEmpty else { return }
        let outcomes: [Result<Interaction, CassetteStoreError>]
        do throws(CassetteStoreError) {
            outcomes = try writing { connection in
                try connection.transaction {
                    var outcomes: [Result<Interaction, CassetteStoreError>] = []
                    outcomes.reserveCapacity(batch.count)
                    for recording in batch {
                        outcomes.append(try Self.insertAlone(recording, into: connection, path: path))
                    }
                    return outcomes
                }
            }
        } catch {
            // BEGIN or COMMIT failed, or SQLite rolled the whole transaction back (disk full,
            // I/O error): none of the batch is stored, every caller in it hears why. Rows of
            // earlier transactions are untouched.
            outcomes = Array(repeating: .failure(error), count: batch.count)
        }
        recordingQueue.noteTransaction(of: batch.count)
        for (recording, outcome) in zip(batch, outcomes) {
            recording.continuation.resume(returning: outcome)
        }
    }

    /// Inserts one recording inside its own savepoint, so a failure that belongs to it alone (a
    /// constraint, a body over SQLite's size limit) fails only its caller; the rest of the batch
    /// still commits. Throws when SQLite rolled back the whole transaction.
    private static func insertAlone(
        _ recording: PendingRecording, into connection: SQLiteConnection, path: String
    ) throws -> Result<Interaction, CassetteStoreError> {
        try connection.cachedStatement("SAVEPOINT recording").run()
        do {
            if let lastReplacedRow = recording.lastReplacedRow {
                try connection.cachedStatement("DELETE FROM interactions WHERE cassette = ? AND request_key = ? AND id <= ?")
                    .run(recording.interaction.cassette, recording.interaction.key, lastReplacedRow)
            }
            let stored = try insert(recording.interaction, into: connection)
            try connection.cachedStatement("RELEASE recording").run()
            return .success(stored)
        } catch {
            guard connection.isInTransaction else { throw error }
            try connection.cachedStatement("ROLLBACK TO recording").run()
            try connection.cachedStatement("RELEASE recording").run()
            return .failure(storeError(error, path: path))
        }
    }

    private static func storeError(_ error: any Error, path: String) -> CassetteStoreError {
        do {
            let _: Void = try translatingErrors(path: path, writing: true) { throw error }
        } catch {
            return error
        }
        preconditionFailure("translatingErrors returned from a body that only throws")
    }
}
