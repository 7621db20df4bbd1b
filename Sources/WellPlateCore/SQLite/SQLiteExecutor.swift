import Dispatch

/// A serial executor backed by a dedicated `DispatchQueue`, so that an actor owning an `SQLiteConnection`
/// runs its blocking SQLite calls there instead of on Swift's cooperative thread pool.
///
/// Use it as the actor's executor:
///
/// ```swift
/// actor Store {
///     private let executor: SQLiteExecutor
///     private let connection: SQLiteConnection
///     nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
///
///     init(path: String) async throws {
///         let executor = SQLiteExecutor(label: "store")
///         self.executor = executor
///         self.connection = try await executor.run { try SQLiteConnection(path: path) }
///     }
/// }
/// ```
///
/// `DispatchSerialQueue` is a `SerialExecutor` on Apple platforms only; swift-corelibs-libdispatch
/// (Swift 6.3 on Linux) has no such type, hence this class (modelled on GRDB's `DispatchQueueActor`).
final class SQLiteExecutor: SerialExecutor {
    /// The queue every job runs on.
    let queue: DispatchQueue
    private let marker = DispatchSpecificKey<ObjectIdentifier>()

    /// - Parameter label: the queue's label, visible in debuggers and crash reports.
    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: marker, value: ObjectIdentifier(self))
    }

    /// Runs `job` on the queue, in submission order.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedSerialExecutor())
        }
    }

    /// The value an actor returns from `unownedExecutor` to run on this executor.
    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` and isolation checks accept code that reached the queue without a job
    /// (for example through `run(_:)`).
    func checkIsolated() {
        precondition(isCurrent, "expected to run on the SQLite executor queue '\(queue.label)'")
    }

    /// Whether the calling code runs on this executor's queue.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: marker) == ObjectIdentifier(self)
    }

    /// Runs `work` on the queue and returns its result, suspending (not blocking) the caller meanwhile.
    ///
    /// For work that must happen before an actor can be isolated to this executor, such as opening
    /// the connection in the actor's initializer.
    func run<T>(_ work: @escaping @Sendable () throws -> sending T) async throws -> sending T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            queue.async {
                do {
                    continuation.resume(returning: try work())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
