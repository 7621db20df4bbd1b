import CSQLite

extension SQLiteConnection {
    /// The schema version stored in the file header (`PRAGMA user_version`); 0 for a new file.
    var userVersion: Int {
        get throws(SQLiteError) {
            try cachedStatement("PRAGMA user_version").firstValue { $0.int(at: 0) } ?? 0
        }
    }

    /// Sets `PRAGMA user_version`; part of the surrounding transaction when there is one.
    func setUserVersion(_ version: Int) throws(SQLiteError) {
        guard let version = Int32(exactly: version) else {
            throw SQLiteError.library(
                .range, "user_version must fit in 32 bits; \(version) does not", path: path)
        }
        // PRAGMA takes no bound parameters; an integer literal cannot inject anything.
        try execute("PRAGMA user_version = \(version)")
    }

    /// Problems found by `PRAGMA integrity_check`; empty when the database is intact.
    ///
    /// Damage severe enough to stop the check itself throws a `corrupt` or `notADatabase` error instead.
    func integrityCheck() throws(SQLiteError) -> [String] {
        let messages = try prepare("PRAGMA integrity_check").allValues { $0.text(at: 0) }
        return messages == ["ok"] ? [] : messages
    }
}

extension SQLiteConnection {
    /// Whether writes will fail: the file or its directory is write-protected, or it was opened read-only.
    var isReadOnly: Bool {
        guard let db = try? handle() else { return true }
        return sqlite3_db_readonly(db, "main") == 1
    }

    /// The names of the tables in the main schema, for telling our files from other applications'.
    func tableNames() throws(SQLiteError) -> [String] {
        try prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").allValues { $0.text(at: 0) }
    }

    /// The columns of `table` (none for a table that does not exist), for reading an older
    /// schema opened read-only, which lacks columns later migrations added.
    func columnNames(of table: String) throws(SQLiteError) -> Set<String> {
        let statement = try prepare("SELECT name FROM pragma_table_info(?)")
        try statement.bind(table, at: 1)
        return Set(try statement.allValues { $0.text(at: 0) })
    }
}

extension SQLiteConnection {
    /// `PRAGMA synchronous`: when SQLite waits for the disk. In WAL mode `normal` syncs at
    /// checkpoints only (safe against process crashes), `full` at every commit (also against power loss).
    enum Synchronous: Int, Sendable {
        case off = 0
        case normal = 1
        case full = 2
        case extra = 3
    }

    /// The current level; `nil` for a value this SQLite version added after `extra`.
    var synchronous: Synchronous? {
        get throws(SQLiteError) {
            Synchronous(rawValue: try cachedStatement("PRAGMA synchronous").firstValue { $0.int(at: 0) } ?? -1)
        }
    }

    /// Sets `PRAGMA synchronous` for this connection (it is not stored in the file).
    func setSynchronous(_ level: Synchronous) throws(SQLiteError) {
        // PRAGMA takes no bound parameters; the value is one of the enum's integers.
        try execute("PRAGMA synchronous = \(level.rawValue)")
    }
}
