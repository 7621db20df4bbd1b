import Foundation
import HTTPTypes

/// The SQLite file that holds recorded traffic. All SQLite work runs on the store's own serial
/// queue (its actor executor), never on the cooperative thread pool. Every recording is committed
/// before its caller continues (concurrent ones share a transaction: group commit), so a crash
/// loses nothing already answered.
public actor CassetteStore {
    /// Whether a store may be changed; chosen when it is opened.
    public enum Access: Sendable {
        /// For replay, listing and export; the file must exist and is never modified.
        case readOnly
        /// For recording and deleting; the file is created when missing.
        case readWrite
    }

    /// The file name `open(path:)` uses when none is given: `cassettes.db` in the working directory.
    public static let defaultPath = "cassettes.db"

    /// The file's path, as passed to `open(path:)`.
    public nonisolated let path: String
    /// Whether the store was opened for reading only or for writing too.
    public nonisolated let access: Access
    /// How far committed recordings survive (`Durability`); applies to writers.
    public nonisolated let durability: Durability
    let executor: SQLiteExecutor
    /// Where a recording waits for its upstream's answer and its commit (`SQLiteQueueTaskExecutor`).
    nonisolated let recordingTaskExecutor: SQLiteQueueTaskExecutor
    /// Recordings waiting for the next group-commit transaction.
    nonisolated let recordingQueue = RecordingQueue()
    private var connection: SQLiteConnection?

    /// The store's own serial queue, on which all its SQLite work runs.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    private init(path: String, access: Access, durability: Durability, executor: SQLiteExecutor, connection: sending SQLiteConnection) {
        self.path = path
        self.access = access
        self.durability = durability
        self.executor = executor
        recordingTaskExecutor = SQLiteQueueTaskExecutor(executor)
        self.connection = connection
    }

    /// Opens (and for `readWrite`, upgrades) a store, refusing files that are missing, not SQLite,
    /// damaged, someone else's database, newer than this build, or read-only for writing.
    /// `readWrite` creates a missing file unless `creatingIfMissing` is false: deleting from a
    /// file that is not there is a mistake, not a reason to create an empty store. `durability`
    /// says whether a writer's commits survive only process crashes (`normal`) or power loss too.
    public static func open(
        path: String = defaultPath, access: Access = .readOnly, creatingIfMissing: Bool = true, busyTimeout: Duration = .seconds(5),
        durability: Durability = .normal
    ) async throws(CassetteStoreError) -> CassetteStore {
        let executor = SQLiteExecutor(label: "cassette-store")
        let creates = access == .readWrite && creatingIfMissing
        do {
            let connection = try await executor.run {
                try openConnection(path: path, access: access, creates: creates, busyTimeout: busyTimeout, durability: durability)
            }
            return CassetteStore(path: path, access: access, durability: durability, executor: executor, connection: connection)
        } catch let error as CassetteStoreError {
            throw error
        } catch {
            throw CassetteStoreError(.io, path: path, message: "\(path): \(error)")
        }
    }

    /// Closes the file; later calls fail with a clear error. A writer checkpoints the WAL so the
    /// file alone holds everything (convenient for committing `cassettes.db`).
    public func close() throws(CassetteStoreError) {
        guard let connection else { return }
        // Recordings already waiting are written: their callers are owed an answer.
        commitWaitingRecordings()
        self.connection = nil
        do {
            if access == .readWrite {
                try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                // Back to a rollback journal, so readers need no -shm file: a committed or
                // read-only cassettes.db then opens anywhere. Another writer still attached keeps
                // WAL on; that is fine, the next writer to close switches.
                try? connection.execute("PRAGMA journal_mode=DELETE")
            }
            try connection.close()
        } catch {
            throw CassetteStoreError.from(error, path: path, writing: access == .readWrite)
        }
    }

    // MARK: Plumbing

    func reading<T>(_ body: (SQLiteConnection) throws -> T) throws(CassetteStoreError) -> T {
        guard let connection else {
            throw CassetteStoreError(.io, path: path, message: "\(path) was already closed")
        }
        return try Self.translatingErrors(path: path, writing: false) { try body(connection) }
    }

    func writing<T>(_ body: (SQLiteConnection) throws -> T) throws(CassetteStoreError) -> T {
        guard access == .readWrite else {
            throw CassetteStoreError(.readOnly, path: path, message: "\(path) was opened read-only; open it for writing to change it")
        }
        guard let connection else {
            throw CassetteStoreError(.io, path: path, message: "\(path) was already closed")
        }
        return try Self.translatingErrors(path: path, writing: true) { try body(connection) }
    }

    /// Runs `body`, turning whatever it throws into a `CassetteStoreError` about `path`.
    static func translatingErrors<T>(path: String, writing: Bool, _ body: () throws -> T) throws(CassetteStoreError) -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw CassetteStoreError.from(error, path: path, writing: writing)
        } catch let error as CassetteStoreError {
            throw error
        } catch {
            throw CassetteStoreError(.io, path: path, message: "\(path): \(error)")
        }
    }
}
