import NIOCore
import WellPlateCore

/// Runs a forwarded request's task on its connection's event loop. The task only waits (for
/// libcurl's thread, for the store's commit) and does the request's own CPU work (redaction,
/// keys); on the cooperative pool every resumption was one more thread hand-off (loop → pool →
/// curl → pool → store → pool → loop), and on two shared cores each hand-off is a wake-up that
/// costs more than the work. Here a continuation resumed by libcurl or the store goes straight to
/// the loop that writes the answer. Nothing that blocks runs in such a task: libcurl and SQLite
/// keep their own threads.
package final class EventLoopTaskExecutor: TaskExecutor {
    package let eventLoop: any EventLoop

    package init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
