import Foundation
import HTTPTypes

/// The SQLite file that holds recorded traffic. All SQLite work runs on the store's own serial
/// queue (its actor executor), never on the cooperative thread pool. Every recording is committed
/// in its own transaction before its caller continues, so a crash loses nothing already answered.
public actor CassetteStore {
    public enum Access: Sendable {
        /// For replay, listing and export; the file must exist and is never modified.
        case readOnly
        /// For recording and deleting; the file is created when missing.
        case readWrite
    }

    public static let defaultPath = "cassettes.db"

    public nonisolated let path: String
    public nonisolated let access: Access
    private let executor: SQLiteExecutor
    private var connection: SQLiteConnection?

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    private init(path: String, access: Access, executor: SQLiteExecutor, connection: sending SQLiteConnection) {
        self.path = path
        self.access = access
        self.executor = executor
        self.connection = connection
    }

    /// Opens (and for `readWrite`, creates or upgrades) a store, refusing files that are missing,
    /// not SQLite, damaged, someone else's database, newer than this build, or read-only for writing.
    public static func open(path: String = defaultPath, access: Access = .readOnly, busyTimeout: Duration = .seconds(5)) async throws(CassetteStoreError) -> CassetteStore {
        let executor = SQLiteExecutor(label: "cassette-store")
        do {
            let connection = try await executor.run { try openConnection(path: path, access: access, busyTimeout: busyTimeout) }
            return CassetteStore(path: path, access: access, executor: executor, connection: connection)
        } catch let error as CassetteStoreError {
            throw error
        } catch {
            throw CassetteStoreError(.io, path: path, message: "\(path): \(error)")
        }
    }

    private static func openConnection(path: String, access: Access, busyTimeout: Duration) throws(CassetteStoreError) -> SQLiteConnection {
        let writing = access == .readWrite
        if !writing && !FileManager.default.fileExists(atPath: path) {
            throw CassetteStoreError(.missingFile, path: path, message: "\(path) does not exist; record a session first (`cassette record`) or pass --db with the right path")
        }
        if FileManager.default.fileExists(atPath: path), (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0, !writing {
            throw CassetteStoreError(.notACassetteStore, path: path, message: "\(path) is empty, not a cassette store; record into it first or pass the right --db")
        }
        do {
            if writing && FileManager.default.fileExists(atPath: path) {
                // Vetted without write access first: a writable connection switches the file to WAL
                // journaling, which would rewrite another application's database or a newer store.
                let probe = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: busyTimeout)
                _ = try refuseForeignOrNewer(probe, path: path)
                try probe.close()
            }
            let connection = try SQLiteConnection(path: path, mode: writing ? .readWriteCreate : .readOnly, busyTimeout: busyTimeout)
            if writing && connection.isReadOnly {
                throw CassetteStoreError(.readOnly, path: path, message: "\(path) is read-only, so nothing can be recorded into it; make it and its directory writable or pass another --db")
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
                throw CassetteStoreError(.notACassetteStore, path: path, message: tables.isEmpty
                    ? "\(path) is an empty SQLite database, not a cassette store; record into it first"
                    : "\(path) was written by an older cassette (schema \(version)); open it once with `cassette record` to upgrade it")
            }
            return connection
        } catch let error as SQLiteError {
            throw CassetteStoreError.from(error, path: path, writing: writing)
        } catch let error as CassetteStoreError {
            throw error
        } catch {
            throw CassetteStoreError(.io, path: path, message: "\(path): \(error)")
        }
    }

    /// Refuses another application's database and a store written by a newer build; returns the
    /// file's schema version and tables otherwise.
    private static func refuseForeignOrNewer(_ connection: SQLiteConnection, path: String) throws -> (version: Int, tables: Set<String>) {
        let version = try connection.userVersion
        let tables = Set(try connection.tableNames())
        if version == 0 && !tables.isEmpty && !CassetteSchema.tables.isSubset(of: tables) {
            throw CassetteStoreError(.notACassetteStore, path: path, message: "\(path) is an SQLite database of another application (tables: \(tables.sorted().joined(separator: ", "))); pass a different --db")
        }
        if version > CassetteSchema.migrator.latestVersion {
            throw CassetteStoreError(.schemaTooNew, path: path, message: SQLiteSchemaTooNewError(path: path, fileVersion: version, supportedVersion: CassetteSchema.migrator.latestVersion, applicationName: "cassette").description)
        }
        return (version, tables)
    }

    // MARK: Recording

    /// Commits one interaction in its own transaction and returns it with its id and sequence.
    /// The sequence is the next free position for its key, decided under the write lock, so
    /// concurrent recorders (even other processes) never collide. `replacingRowsUpTo` first deletes
    /// the recordings of the key with that row id or lower: record mode `all` replaces what existed
    /// before its session without touching what the session itself recorded concurrently.
    @discardableResult
    public func record(_ interaction: Interaction, replacingRowsUpTo lastReplacedRow: Int64? = nil) throws(CassetteStoreError) -> Interaction {
        try writing { connection in
            var stored = interaction
            try connection.transaction {
                if let lastReplacedRow {
                    try connection.cachedStatement("DELETE FROM interactions WHERE cassette = ? AND request_key = ? AND id <= ?")
                        .run(interaction.cassette, interaction.key, lastReplacedRow)
                }
                stored = try Self.insert(interaction, into: connection)
            }
            return stored
        }
    }

    /// Stores many interactions in one transaction (imports, generated stores); each gets the next
    /// free sequence position of its key, in the order given. All or nothing.
    public func record(batch interactions: [Interaction]) throws(CassetteStoreError) {
        try writing { connection in
            try connection.transaction {
                for interaction in interactions {
                    try Self.insert(interaction, into: connection)
                }
            }
        }
    }

    /// Remembers where a cassette was recorded from and with which matching rules, so replay
    /// computes keys exactly as recording did.
    public func saveCassette(_ info: CassetteInfo) throws(CassetteStoreError) {
        try writing { connection in
            let rules = try info.storedRules
            try connection.cachedStatement("""
                INSERT INTO cassettes (name, upstream, matching_rules, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET upstream = excluded.upstream, matching_rules = excluded.matching_rules
                """).run(info.name, info.upstream, rules, info.createdAt.timeIntervalSince1970)
        }
    }

    /// Recomputes the stored keys of a cassette's recordings with `rules` and this version's key
    /// format (after either changed), numbering each key's recordings again in recorded order.
    /// One transaction: a crash leaves the old keys, and opening the cassette rekeys it again.
    /// Returns the number of recordings whose key changed.
    @discardableResult
    public func rekey(cassette: String, rules: MatchingRules) throws(CassetteStoreError) -> Int {
        try writing { connection in
            var changed = 0
            try connection.transaction {
                let select = try connection.prepare("SELECT \(CassetteSchema.interactionColumns) FROM interactions WHERE cassette = ? ORDER BY recorded_at, sequence, id")
                try select.bind(cassette, at: 1)
                var reader = InteractionRowReader()
                let rows = try select.mapRows { row in
                    let interaction = try reader.read(row)
                    return (id: interaction.id ?? 0, old: interaction.key, new: CassetteSession.key(for: interaction, rules: rules).rawValue)
                }
                // Parked on negative sequences first: (cassette, key, sequence) stays unique meanwhile.
                try connection.cachedStatement("UPDATE interactions SET sequence = -1 - sequence WHERE cassette = ?").run(cassette)
                var nextSequence: [String: Int] = [:]
                let update = try connection.cachedStatement("UPDATE interactions SET request_key = ?, sequence = ? WHERE id = ?")
                for row in rows {
                    let sequence = nextSequence[row.new, default: 0]
                    nextSequence[row.new] = sequence + 1
                    try update.run(row.new, sequence, row.id)
                    if row.new != row.old { changed += 1 }
                }
            }
            return changed
        }
    }

    // MARK: Reading

    public func cassette(named name: String) throws(CassetteStoreError) -> CassetteInfo? {
        try reading { connection in
            let statement = try connection.prepare("SELECT name, upstream, matching_rules, created_at FROM cassettes WHERE name = ?")
            try statement.bind(name, at: 1)
            return try statement.firstRow(CassetteInfo.init(row:))
        }
    }

    /// Every cassette with its interaction count, including cassettes known only from recordings.
    public func cassettes() throws(CassetteStoreError) -> [CassetteSummary] {
        try reading { connection in
            try connection.prepare("""
                SELECT names.name, c.upstream, count(i.id), coalesce(sum(length(i.response_body)), 0), max(i.recorded_at)
                FROM (SELECT name FROM cassettes UNION SELECT DISTINCT cassette FROM interactions) AS names
                LEFT JOIN cassettes AS c ON c.name = names.name
                LEFT JOIN interactions AS i ON i.cassette = names.name
                GROUP BY names.name ORDER BY names.name
                """).mapRows { row in
                CassetteSummary(
                    name: row.text(at: 0),
                    upstream: row.isNull(at: 1) ? nil : row.text(at: 1),
                    interactionCount: row.int(at: 2),
                    bodyBytes: row.int(at: 3),
                    lastRecordedAt: row.isNull(at: 4) ? nil : Date(timeIntervalSince1970: row.double(at: 4))
                )
            }
        }
    }

    /// All interactions of one cassette (or of every cassette), ordered by key and sequence.
    public func interactions(cassette: String?) throws(CassetteStoreError) -> [Interaction] {
        try reading { connection in
            let statement: SQLiteStatement
            if let cassette {
                statement = try connection.prepare("SELECT \(CassetteSchema.interactionColumns) FROM interactions WHERE cassette = ? ORDER BY request_key, sequence")
                try statement.bind(cassette, at: 1)
            } else {
                statement = try connection.prepare("SELECT \(CassetteSchema.interactionColumns) FROM interactions ORDER BY cassette, request_key, sequence")
            }
            var reader = InteractionRowReader()
            return try statement.mapRows { try reader.read($0) }
        }
    }

    /// Loads a cassette straight into a replay index, row by row, so the cassette is never held
    /// twice in memory. With `rekeyingWith`, keys are recomputed from the stored requests (the
    /// cassette was recorded with other matching rules).
    public func replayIndex(cassette: String, sequencePolicy: SequencePolicy, rekeyingWith rules: MatchingRules? = nil) throws(CassetteStoreError) -> ReplayIndex {
        try reading { connection in
            let statement = try connection.prepare("SELECT \(CassetteSchema.interactionColumns) FROM interactions WHERE cassette = ?")
            try statement.bind(cassette, at: 1)
            var builder = ReplayIndex.Builder()
            let count = try connection.prepare("SELECT count(*) FROM interactions WHERE cassette = ?")
            try count.bind(cassette, at: 1)
            builder.reserveCapacity(try count.firstRow { $0.int(at: 0) } ?? 0)
            var reader = InteractionRowReader(derivesContentLength: true, packsBodies: true)
            while try statement.step() {
                var interaction = try reader.read(statement)
                if let rules {
                    interaction.key = CassetteSession.key(for: interaction, rules: rules).rawValue
                }
                builder.add(interaction, headersShared: true)
            }
            statement.reset()
            // The mapping made the load fast; unmapped, the file's pages stop counting as ours.
            try connection.execute("PRAGMA mmap_size = 0")
            try connection.execute("PRAGMA mmap_size = 1073741824")
            return ReplayIndex(cassette: cassette, sequencePolicy: sequencePolicy, builder: builder)
        }
    }

    /// The recordings of one key, in sequence order.
    public func interactions(key: String, cassette: String?) throws(CassetteStoreError) -> [Interaction] {
        try reading { connection in
            let statement = try connection.prepare("""
                SELECT \(CassetteSchema.interactionColumns) FROM interactions
                WHERE request_key = ?1 AND (?2 IS NULL OR cassette = ?2) ORDER BY cassette, sequence
                """)
            try statement.bind(key, at: 1)
            try statement.bind(cassette, at: 2)
            var reader = InteractionRowReader()
            return try statement.mapRows { try reader.read($0) }
        }
    }

    /// A listing without bodies: what `cassette list` prints.
    public func summaries(cassette: String?) throws(CassetteStoreError) -> [InteractionSummary] {
        try reading { connection in
            let statement = try connection.prepare("""
                SELECT id, cassette, method, request_key, sequence, status, length(response_body), recorded_at, duration_ms
                FROM interactions WHERE (?1 IS NULL OR cassette = ?1) ORDER BY cassette, request_key, sequence
                """)
            try statement.bind(cassette, at: 1)
            return try statement.mapRows { row in
                InteractionSummary(
                    id: row.int64(at: 0), cassette: row.text(at: 1), method: row.text(at: 2), key: row.text(at: 3),
                    sequence: row.int(at: 4), statusCode: row.int(at: 5), bodySize: row.int(at: 6),
                    recordedAt: Date(timeIntervalSince1970: row.double(at: 7)), durationMilliseconds: row.double(at: 8)
                )
            }
        }
    }

    /// The highest row id so far (0 for an empty store).
    public func maxRowID() throws(CassetteStoreError) -> Int64 {
        try reading { connection in
            try connection.cachedStatement("SELECT coalesce(max(id), 0) FROM interactions").firstRow { $0.int64(at: 0) } ?? 0
        }
    }

    public func count(cassette: String?) throws(CassetteStoreError) -> Int {
        try reading { connection in
            let statement = try connection.prepare("SELECT count(*) FROM interactions WHERE (?1 IS NULL OR cassette = ?1)")
            try statement.bind(cassette, at: 1)
            return try statement.firstRow { $0.int(at: 0) } ?? 0
        }
    }

    /// Problems `PRAGMA integrity_check` finds; empty when the file is sound.
    public func integrityCheck() throws(CassetteStoreError) -> [String] {
        try reading { try $0.integrityCheck() }
    }

    // MARK: Deleting

    /// Deletes every recording of `key` (in one cassette, or all); returns how many went.
    @discardableResult
    public func delete(key: String, cassette: String?) throws(CassetteStoreError) -> Int {
        try writing { connection in
            try connection.transaction {
                try connection.prepare("DELETE FROM interactions WHERE request_key = ?1 AND (?2 IS NULL OR cassette = ?2)").run(key, cassette)
                return connection.changes
            }
        }
    }

    /// Deletes a whole cassette.
    @discardableResult
    public func delete(cassette: String) throws(CassetteStoreError) -> Int {
        try writing { connection in
            try connection.transaction {
                try connection.prepare("DELETE FROM interactions WHERE cassette = ?").run(cassette)
                let removed = connection.changes
                try connection.prepare("DELETE FROM cassettes WHERE name = ?").run(cassette)
                return removed
            }
        }
    }

    /// Deletes recordings made before `date`; returns how many went.
    @discardableResult
    public func prune(recordedBefore date: Date, cassette: String?) throws(CassetteStoreError) -> Int {
        try writing { connection in
            try connection.transaction {
                try connection.prepare("DELETE FROM interactions WHERE recorded_at < ?1 AND (?2 IS NULL OR cassette = ?2)")
                    .run(date.timeIntervalSince1970, cassette)
                return connection.changes
            }
        }
    }

    /// Closes the file; later calls fail with a clear error. A writer checkpoints the WAL so the
    /// file alone holds everything (convenient for committing `cassettes.db`).
    public func close() throws(CassetteStoreError) {
        guard let connection else { return }
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

    /// Inserts one row at the next sequence position of its key; the caller holds a transaction.
    @discardableResult
    static func insert(_ interaction: Interaction, into connection: SQLiteConnection) throws -> Interaction {
        var stored = interaction
        let next = try connection.cachedStatement("SELECT coalesce(max(sequence) + 1, 0) FROM interactions WHERE cassette = ? AND request_key = ?")
        next.reset()
        try next.bind(interaction.cassette, interaction.key)
        stored.sequence = try next.step() ? next.int(at: 0) : 0
        next.reset()
        let insert = try connection.cachedStatement("""
            INSERT INTO interactions (cassette, method, url, request_key, sequence, request_headers, request_body,
                status, response_headers, response_body, content_encoding, recorded_at, duration_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try insert.run(
            stored.cassette, stored.method.rawValue, stored.url, stored.key, stored.sequence,
            HeaderLines.encode(stored.requestHeaders), stored.requestBody, stored.statusCode,
            HeaderLines.encode(stored.responseHeaders), stored.responseBody, stored.contentEncoding,
            stored.recordedAt.timeIntervalSince1970, stored.durationMilliseconds
        )
        stored.id = connection.lastInsertRowID
        return stored
    }

    func reading<T>(_ body: (SQLiteConnection) throws -> T) throws(CassetteStoreError) -> T {
        guard let connection else {
            throw CassetteStoreError(.io, path: path, message: "\(path) was already closed")
        }
        do {
            return try body(connection)
        } catch let error as SQLiteError {
            throw CassetteStoreError.from(error, path: path, writing: false)
        } catch let error as CassetteStoreError {
            throw error
        } catch {
            throw CassetteStoreError(.io, path: path, message: "\(path): \(error)")
        }
    }

    func writing<T>(_ body: (SQLiteConnection) throws -> T) throws(CassetteStoreError) -> T {
        guard access == .readWrite else {
            throw CassetteStoreError(.readOnly, path: path, message: "\(path) was opened read-only; open it for writing to change it")
        }
        guard let connection else {
            throw CassetteStoreError(.io, path: path, message: "\(path) was already closed")
        }
        do {
            return try body(connection)
        } catch let error as SQLiteError {
            throw CassetteStoreError.from(error, path: path, writing: true)
        } catch let error as CassetteStoreError {
            throw error
        } catch {
            throw CassetteStoreError(.io, path: path, message: "\(path): \(error)")
        }
    }
}
