import CassetteKernel
import Synchronization

/// The writing tasks of the conversations being recorded, so that a stopping proxy closes its
/// store only once each has written what it received (its end, or `cut`).
package final class ConversationWriters: Sendable {
    private let tasks = Mutex<(next: Int, running: [Int: Task<Void, Never>])>((0, [:]))

    /// Runs `work`, remembered until it ends.
    package func run(_ work: @escaping @Sendable () async -> Void) {
        tasks.withLock { tasks in
            let id = tasks.next
            tasks.next += 1
            tasks.running[id] = Task { [self] in
                await work()
                _ = self.tasks.withLock { $0.running.removeValue(forKey: id) }
            }
        }
    }

    /// Waits for every task running now.
    package func finishAll() async {
        let running = tasks.withLock { Array($0.running.values) }
        for task in running { await task.value }
    }
}
