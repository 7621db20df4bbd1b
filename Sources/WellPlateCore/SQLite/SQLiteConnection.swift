import CSQLite
import Foundation

/// One open SQLite database file.
///
/// Not `Sendable`: SQLite is opened without its own mutex (`SQLITE_OPEN_NOMUTEX`), so a connection must be
/// used from one executor at a time, normally an actor running on an `SQLiteExecutor`.
/// Writable connections use WAL journaling with `synchronous=NORMAL`; foreign keys are enforced.
final class SQLiteConnection {
    /// How the file is opened.
    enum Mode: Sendable {
        /// Reads only; a missing file is an error.
        case readOnly
        /// Reads and writes an existing file.
        case readWrite
        /// Reads and writes, creating the file when missing.
        case readWriteCreate
    }

    /// The file as given to `init`; every error names it.
    let path: String
    /// The mode it was opened with; a write-protected file opened writable still refuses writes.
    let mode: Mode
    /// `nil` once closed.
    private var db: OpaquePointer?
    /// Shared with every statement, so statements the caller still holds refuse to run after `close()`.
    private let lifetime = SQLiteConnectionLifetime()
    private var statementCache: [String: SQLiteStatement] = [:]

    /// Opens `path` and reads its schema, so a file that is not SQLite or is damaged fails here
    /// rather than at some later query.
    ///
    /// - Parameter busyTimeout: how long a statement waits for another connection's lock before failing
    ///   with `SQLiteError.Code.busy`.
    init(path: String, mode: Mode = .readWriteCreate, busyTimeout: Duration = .seconds(5)) throws(SQLiteError) {
        self.path = path
        self.mode = mode
        self.db = try Self.open(path: path, mode: mode)
        do {
            try configure(busyTimeout: busyTimeout)
        } catch {
            close(afterFailure: error)
            throw error
        }
    }

    deinit {
        close(afterFailure: nil)
    }

    // MARK: Opening and closing

    private static func open(path: String, mode: Mode) throws(SQLiteError) -> OpaquePointer {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        // The system SQLite is built with URI filenames on; a plain path must never be read as a URI.
        let filename = path.hasPrefix("file:") ? "./" + path : path
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(filename, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let error = SQLiteError.from(rc == SQLITE_OK ? SQLITE_NOMEM : rc, db: db, sql: nil, path: path)
            // Even a failed open allocates a handle; closing one that ran no statement cannot fail.
            sqlite3_close_v2(db)
            throw error
        }
        return db
    }

    private func configure(busyTimeout: Duration) throws(SQLiteError) {
        let db = try handle()
        // Older libraries ignore SQLITE_OPEN_EXRESCODE; this makes every later call return extended codes.
        try check(sqlite3_extended_result_codes(db, 1))
        try check(sqlite3_busy_timeout(db, Self.milliseconds(busyTimeout)))
        try check(csqlite_db_config_bool(db, SQLITE_DBCONFIG_ENABLE_FKEY, 1))
        // Reads the header and parses the schema: SQLITE_NOTADB / SQLITE_CORRUPT surface now.
        _ = try prepare("SELECT count(*) FROM sqlite_master").firstValue { $0.int64(at: 0) }
        // A writable mode on a write-protected file gives a read-only connection; switching it to WAL
        // would fail, and its writes should fail with SQLITE_READONLY instead.
        if mode != .readOnly, sqlite3_db_readonly(db, "main") == 0 {
            let journal = try prepare("PRAGMA journal_mode=WAL").firstValue { $0.text(at: 0) }
            guard journal == "wal" || journal == "memory" else {
                throw SQLiteError.library(
                    .error,
                    "could not switch to WAL journaling (SQLite kept '\(journal ?? "")'); "
                        + "put the file on a local file system", path: path)
            }
            try execute("PRAGMA synchronous=NORMAL")
        }
    }

    private static func milliseconds(_ duration: Duration) -> CInt {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return seconds < 0 ? 0 : .max }
        return CInt(clamping: max(0, milliseconds.partialValue + attoseconds / 1_000_000_000_000_000))
    }

    /// Finalizes cached statements and closes the file. Calling it again does nothing.
    ///
    /// Statements from `prepare(_:)` that are still alive keep SQLite's handle open until they are
    /// released (`sqlite3_close_v2` semantics); using them afterwards throws `misuse`.
    func close() throws(SQLiteError) {
        guard let rc = closeHandle() else { return }
        try check(rc, db: nil)
    }

    /// Closing during cleanup, where there is no caller to throw to.
    private func close(afterFailure failure: SQLiteError?) {
        let rc = closeHandle() ?? SQLITE_OK
        // sqlite3_close_v2 fails only for a handle that is not an open connection, which `db` always is.
        assert(rc == SQLITE_OK, "sqlite3_close_v2 failed (\(rc)) for \(path); earlier failure: \(String(describing: failure))")
    }

    /// `sqlite3_close_v2`'s result, or `nil` when already closed.
    private func closeHandle() -> CInt? {
        guard let db else { return nil }
        finalizeCachedStatements()
        lifetime.isOpen = false
        self.db = nil
        return sqlite3_close_v2(db)
    }

    private func finalizeCachedStatements() {
        for statement in statementCache.values {
            statement.finalize()
        }
        statementCache.removeAll()
    }

    // MARK: Running SQL

    /// Runs one or more `;`-separated statements, discarding any rows they return.
    func execute(_ sql: String) throws(SQLiteError) {
        let db = try handle()
        let failure: SQLiteError? = sql.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var statement: OpaquePointer?
                let rc = sqlite3_prepare_v2(db, current, -1, &statement, &next)
                guard rc == SQLITE_OK else {
                    return SQLiteError.from(rc, db: db, sql: Self.trimmed(current), path: path)
                }
                guard let statement else { continue }  // only whitespace or a comment was left
                var stepped = sqlite3_step(statement)
                while stepped == SQLITE_ROW {
                    stepped = sqlite3_step(statement)
                }
                let error =
                    stepped == SQLITE_DONE
                    ? nil : SQLiteError.from(stepped, db: db, sql: Self.trimmed(sqlite3_sql(statement)), path: path)
                // Finalizing repeats the step result, already captured above.
                sqlite3_finalize(statement)
                if let error { return error }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Prepares a single statement, owned by the caller. For statements that run repeatedly use
    /// `cachedStatement(_:)` instead.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try prepare(sql, flags: 0)
    }

    /// The prepared statement for `sql`, kept across calls so it is parsed once; rewound and with
    /// its bindings cleared.
    ///
    /// The same object comes back for the same SQL, so do not start it again while iterating it.
    func cachedStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statementCache[sql] {
            statement.reset()
            try statement.clearBindings()
            return statement
        }
        let statement = try prepare(sql, flags: CUnsignedInt(SQLITE_PREPARE_PERSISTENT))
        statementCache[sql] = statement
        return statement
    }

    private func prepare(_ sql: String, flags: CUnsignedInt) throws(SQLiteError) -> SQLiteStatement {
        let db = try handle()
        let prepared: Result<OpaquePointer, SQLiteError> = sql.withCString { start in
            var statement: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(db, start, -1, flags, &statement, &tail)
            guard rc == SQLITE_OK else {
                return .failure(.from(rc, db: db, sql: sql, path: path))
            }
            guard let statement else {
                return .failure(
                    .library(
                        .misuse, "no SQL statement to prepare (the text is empty or only a comment)",
                        sql: sql, path: path))
            }
            if let tail, Self.hasAnotherStatement(tail, db: db) {
                sqlite3_finalize(statement)  // never stepped, so finalizing cannot fail
                return .failure(
                    .library(
                        .misuse, "prepare takes one statement; use execute(_:) for several",
                        sql: sql, path: path))
            }
            return .success(statement)
        }
        return SQLiteStatement(handle: try prepared.get(), sql: sql, path: path, lifetime: lifetime)
    }

    /// The statement text SQLite points at, without the whitespace that separated it from the previous one.
    private static func trimmed(_ text: UnsafePointer<CChar>) -> String {
        String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether `tail` holds more than whitespace, semicolons and comments.
    private static func hasAnotherStatement(_ tail: UnsafePointer<CChar>, db: OpaquePointer) -> Bool {
        var cursor = tail
        while [0x3B, 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains(cursor.pointee) {
            cursor += 1
        }
        guard cursor.pointee != 0 else { return false }
        // Something other than whitespace remains; only SQLite knows whether it is just a comment.
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, cursor, -1, &statement, nil)
        sqlite3_finalize(statement)
        return rc != SQLITE_OK || statement != nil
    }

    // MARK: State

    /// The rowid of the most recent successful `INSERT` on this connection.
    var lastInsertRowID: Int64 {
        sqlite3_last_insert_rowid(openHandle())
    }

    /// Rows changed by the most recent `INSERT`, `UPDATE` or `DELETE`.
    package var changes: Int {
        Int(sqlite3_changes64(openHandle()))
    }

    /// Whether a transaction is open (SQLite is not in autocommit mode).
    var isInTransaction: Bool {
        sqlite3_get_autocommit(openHandle()) == 0
    }

    /// Whether `close()` has run.
    var isClosed: Bool {
        db == nil
    }

    // MARK: Helpers

    func handle() throws(SQLiteError) -> OpaquePointer {
        guard let db else {
            throw SQLiteError.library(.misuse, "connection used after close(); open a new SQLiteConnection", path: path)
        }
        return db
    }

    /// For the non-throwing accessors: SQLite dereferences a NULL connection there.
    private func openHandle() -> OpaquePointer {
        guard let db else { preconditionFailure("SQLiteConnection for \(path) used after close()") }
        return db
    }

    func check(_ rc: CInt, sql: String? = nil) throws(SQLiteError) {
        try check(rc, db: db, sql: sql)
    }

    private func check(_ rc: CInt, db: OpaquePointer?, sql: String? = nil) throws(SQLiteError) {
        guard rc == SQLITE_OK else { throw SQLiteError.from(rc, db: db, sql: sql, path: path) }
    }
}

/// Whether the connection that prepared a statement is still open; a class so all its statements share it.
final class SQLiteConnectionLifetime {
    var isOpen = true
}
