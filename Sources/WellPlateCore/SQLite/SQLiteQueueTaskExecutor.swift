import Dispatch

/// Runs a task's jobs on an `SQLiteExecutor`'s queue without isolating them to its actor: for
/// the part of a recording between the upstream's answer and the store's commit. libcurl's thread
/// then hands the answer straight to the queue that stores it, and the commit resumes its caller
/// on that same queue, instead of the answer going through the connection's event loop on its way
/// to the store (one thread hand-off fewer per recorded request). The jobs only do the recording's own CPU work
/// (redaction, the key); SQLite calls stay in the store's isolated jobs.
final class SQLiteQueueTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(_ executor: SQLiteExecutor) {
        queue = executor.queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
