import Foundation

/// Vetting a file before use, and migrating it: what `open` refuses and why.
extension CassetteStore {
    static func openConnection(
        path: String, access: Access, creates: Bool, busyTimeout: Duration, durability: Durability = .normal
    ) throws(CassetteStoreError) -> SQLiteConnection {
        let writing = access == .readWrite
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            // SQLite reports a directory as a disk I/O error, which sends users looking at their disk.
            throw CassetteStoreError(.notACassetteStore, path: path, message: "\(path) is a directory, not a cassette store; name a file inside it")
        }
        if !creates && !FileManager.default.fileExists(atPath: path) {
            throw CassetteStoreError(.missingFile, path: path, message: "\(path) does not exist; record a session first")
        }
        if writing && creates && !FileManager.default.fileExists(atPath: path) {
            createAtomically(path: path, busyTimeout: busyTimeout)
        }
        if FileManager.default.fileExists(atPath: path), (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0, !writing {
            throw CassetteStoreError(.notACassetteStore, path: path, message: "\(path) is empty, not a cassette store; record into it first")
        }
        return try translatingErrors(path: path, writing: writing) {
            if writing && FileManager.default.fileExists(atPath: path) {
                // Vetted without write access first: a writable connection switches the file to WAL
                // journaling, which would rewrite another application's database or a newer store.
                let probe = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: busyTimeout)
                _ = try refuseForeignOrNewer(probe, path: path)
                try probe.close()
            }
            let connection = try SQLiteConnection(path: path, mode: writing ? .readWriteCreate : .readOnly, busyTimeout: busyTimeout)
            if writing && connection.isReadOnly {
                throw CassetteStoreError(
                    .readOnly, path: path, message: "\(path) is read-only, so nothing can be recorded into it; make it and its directory writable")
            }
            // The connection starts at NORMAL (SQLiteConnection); FULL is asked for.
            if writing && durability != .normal {
                try connection.setSynchronous(durability.synchronous)
            }
            let (version, tables) = try refuseForeignOrNewer(connection, path: path)
            // Memory-mapped reads skip a copy per page: loading a large cassette is mostly reading.
            try connection.execute("PRAGMA mmap_size = 1073741824")
            if writing {
                do {
                    try CassetteSchema.migrator.migrate(connection)
                } catch let error as SQLiteSchemaTooNewError {
                    throw CassetteStoreError(.schemaTooNew, path: path, message: error.description)
                }
            } else if version < CassetteSchema.oldestReadableVersion {
                throw CassetteStoreError(
                    .notACassetteStore, path: path,
                    message: tables.isEmpty
                        ? "\(path) is an empty SQLite database, not a cassette store; record into it first"
                        : "\(path) was written by an older cassette (schema \(version)); open it once for writing to upgrade it")
            }
            return connection
        }
    }

    /// Refuses another application's database and a store written by a newer build; returns the
    /// file's schema version and tables otherwise.
    private static func refuseForeignOrNewer(_ connection: SQLiteConnection, path: String) throws -> (version: Int, tables: Set<String>) {
        let version = try connection.userVersion
        let tables = Set(try connection.tableNames())
        if version == 0 && !tables.isEmpty && !CassetteSchema.tables.isSubset(of: tables) {
            throw CassetteStoreError(
                .notACassetteStore, path: path,
                message: "\(path) is an SQLite database of another application (tables: \(tables.sorted().joined(separator: ", "))); choose another file")
        }
        if version > CassetteSchema.migrator.latestVersion {
            throw CassetteStoreError(
                .schemaTooNew, path: path,
                message: SQLiteSchemaTooNewError(
                    path: path, fileVersion: version, supportedVersion: CassetteSchema.migrator.latestVersion, applicationName: "cassette"
                ).description)
        }
        return (version, tables)
    }

    /// Creates a new store so that nobody ever sees it half made: SQLite creates an empty file
    /// at open and fills in the schema after, and a reader that opened it in between (another
    /// test of the same run, another process) found "an empty file, not a cassette store". The
    /// store is built complete beside `path`, then hard-linked into place, which fails rather
    /// than replace a store another creator linked first; the temporary name goes either way.
    /// Where that cannot be done (no such directory, no hard links) the caller's ordinary open
    /// creates the file and reports any error about `path` itself. What killed creators left
    /// beside `path` is removed first.
    private static func createAtomically(path: String, busyTimeout: Duration) {
        let url = URL(fileURLWithPath: path)
        let prefix = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).creating-").path
        // A creator killed between building its file and linking it left the file behind.
        StaleTemporaries.remove(prefix: prefix)
        let temporary = StaleTemporaries.name(prefix: prefix)
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) }
        }
        do {
            let connection = try SQLiteConnection(path: temporary, mode: .readWriteCreate, busyTimeout: busyTimeout)
            do {
                try CassetteSchema.migrator.migrate(connection)
                try connection.close()
            } catch {
                try? connection.close()
                return
            }
        } catch {
            return
        }
        // EEXIST: another creator won; its store is as good as this one.
        _ = link(temporary, path)
    }
}
