import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// The thin SQLite layer: statements, connections, errors on damaged files, migrations, and the executor.
/// Each test gets its own instance, hence its own temporary directory, removed in `deinit`.
@Suite("SQLite")
final class SQLiteTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqlite-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String = "test.sqlite") -> String {
        directory.appendingPathComponent(name).path
    }

    /// A closed database holding `rows` rows of 1 KB BLOBs, spread over many pages.
    func makeDatabase(_ name: String = "test.sqlite", rows: Int = 400) throws -> String {
        let file = path(name)
        let connection = try SQLiteConnection(path: file)
        try connection.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
        try connection.transaction {
            let insert = try connection.cachedStatement("INSERT INTO item (payload) VALUES (?)")
            for row in 0..<rows {
                try insert.run(Data(repeating: UInt8(row % 251), count: 1024))
            }
        }
        try connection.close()
        return file
    }

    /// The `SQLiteError` that `body` throws; the test fails when it throws nothing or something else.
    func sqliteError(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> some Any
    ) throws -> SQLiteError {
        try #require(throws: SQLiteError.self, sourceLocation: sourceLocation) { _ = try body() }
    }

    // MARK: Statements

    @Test func everyBindableTypeRoundTripsIncludingNullEmptyAndLargeBlobs() throws {
        let connection = try SQLiteConnection(path: path())
        try connection.execute("CREATE TABLE value (i, i64, d, s, empty_s, data, bytes, empty_blob, big, flag, absent)")
        let big = Data((0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let insert = try connection.prepare("INSERT INTO value VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        try insert.bind(Int.min, at: 1)
        try insert.bind(Int64.max, at: 2)
        try insert.bind(-1.5e300, at: 3)
        try insert.bind("naïve ☕️ text with \0 inside", at: 4)
        try insert.bind("", at: 5)
        try insert.bind(Data([0, 1, 2, 255]), at: 6)
        try insert.bind([UInt8]([9, 8, 7]), at: 7)
        try insert.bind(Data(), at: 8)
        try insert.bind(big, at: 9)
        try insert.bind(true, at: 10)
        try insert.bind(nil, at: 11)
        #expect(try insert.step() == false)

        let select = try connection.prepare("SELECT * FROM value")
        #expect(try select.step())
        #expect(select.columnCount == 11)
        #expect(select.columnName(at: 3) == "s")
        #expect(select.int(at: 0) == Int.min)
        #expect(select.int64(at: 1) == Int64.max)
        #expect(select.double(at: 2) == -1.5e300)
        #expect(select.text(at: 3) == "naïve ☕️ text with \0 inside")
        #expect(select.text(at: 4) == "")
        #expect(!select.isNull(at: 4))
        #expect(select.blob(at: 5) == Data([0, 1, 2, 255]))
        #expect(select.blob(at: 6) == Data([9, 8, 7]))
        #expect(select.blob(at: 7).isEmpty)
        #expect(!select.isNull(at: 7), "an empty BLOB must not turn into NULL")
        #expect(select.blob(at: 8) == big)
        #expect(select.bool(at: 9))
        #expect(select.isNull(at: 10))
        #expect(select.blob(at: 10).isEmpty && select.text(at: 10) == "" && select.int(at: 10) == 0)
        #expect(try select.step() == false)
    }

    @Test func runBindsMixedValuesAndRowHelpersReadEveryRow() throws {
        let connection = try SQLiteConnection(path: path())
        try connection.execute("CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB, note TEXT)")
        let insert = try connection.cachedStatement("INSERT INTO kv VALUES (?, ?, ?)")
        let missingNote: String? = nil
        try insert.run("a", Data([1]), missingNote)
        try insert.run("b", [UInt8]([2, 2]), "second")
        #expect(connection.changes == 1)
        #expect(connection.lastInsertRowID == 2)

        let select = try connection.prepare("SELECT key, length(value), note IS NULL FROM kv ORDER BY key")
        let rows = try select.mapRows { "\($0.text(at: 0))=\($0.int(at: 1)),\($0.bool(at: 2))" }
        #expect(rows == ["a=1,true", "b=2,false"])
        #expect(try select.mapRows { $0.text(at: 0) } == ["a", "b"], "the helper rewinds so the statement can run again")
        let count = try connection.prepare("SELECT count(*) FROM kv WHERE key > ?")
        try count.bind("a")
        #expect(try count.firstRow { $0.int(at: 0) } == 1)
    }

    @Test func bindingTheWrongNumberOfValuesIsRefusedWithTheCounts() throws {
        let connection = try SQLiteConnection(path: path())
        let statement = try connection.prepare("SELECT ?, ?")
        let error = try #require(throws: SQLiteError.self) { try statement.run(1) }
        #expect(error.code == .range)
        #expect(error.description.contains("2 parameter(s) but 1 value(s)"))
        #expect(try sqliteError { try statement.bind(1, at: 3) }.code == .range)
    }

    @Test func prepareRefusesSeveralStatementsButAcceptsATrailingComment() throws {
        let connection = try SQLiteConnection(path: path())
        _ = try connection.prepare("SELECT 1; -- a comment\n")
        let error = try #require(throws: SQLiteError.self) { try connection.prepare("SELECT 1; SELECT 2") }
        #expect(error.code == .misuse)
        #expect(error.description.contains("use execute(_:)"))
    }

    @Test func executeRunsABatchAndNamesTheFailingStatement() throws {
        let connection = try SQLiteConnection(path: path())
        try connection.execute(
            """
            CREATE TABLE a (x); -- first
            INSERT INTO a VALUES (1);
            INSERT INTO a VALUES (2);
            """)
        #expect(try connection.prepare("SELECT sum(x) FROM a").firstRow { $0.int(at: 0) } == 3)
        let error = try #require(throws: SQLiteError.self) {
            try connection.execute("INSERT INTO a VALUES (3); INSERT INTO missing VALUES (4)")
        }
        #expect(error.code == .error)
        #expect(error.message.contains("no such table: missing"))
        #expect(error.sql == "INSERT INTO missing VALUES (4)")
        #expect(error.path == connection.path)
    }

    @Test func cachedStatementIsReusedRewoundAndCleared() throws {
        let connection = try SQLiteConnection(path: path())
        let sql = "SELECT ?1 IS NULL, ?1"
        let first = try connection.cachedStatement(sql)
        try first.bind(42, at: 1)
        #expect(try first.step())  // left mid-iteration on purpose
        let second = try connection.cachedStatement(sql)
        #expect(first === second)
        #expect(try second.firstRow { $0.bool(at: 0) } == true, "bindings are cleared on reuse")
        #expect(try connection.cachedStatement("SELECT 2") !== first)
    }

    @Test func statementsFailCleanlyAfterTheConnectionCloses() throws {
        let connection = try SQLiteConnection(path: path())
        let cached = try connection.cachedStatement("SELECT 1")
        let owned = try connection.prepare("SELECT 2")
        try connection.close()
        try connection.close()
        #expect(connection.isClosed)
        #expect(try sqliteError { try cached.step() }.code == .misuse)
        #expect(try sqliteError { try owned.step() }.code == .misuse)
        #expect(try sqliteError { try connection.execute("SELECT 1") }.code == .misuse)
    }

    // MARK: Transactions

    struct BodyFailure: Error, Equatable {}

    @Test func transactionCommitsTheBodysWrites() throws {
        let file = path()
        let connection = try SQLiteConnection(path: file)
        try connection.execute("CREATE TABLE t (x)")
        let value = try connection.transaction {
            #expect(connection.isInTransaction)
            try connection.execute("INSERT INTO t VALUES (1)")
            return "done"
        }
        #expect(value == "done")
        #expect(!connection.isInTransaction)
        let other = try SQLiteConnection(path: file, mode: .readOnly)
        #expect(try other.prepare("SELECT count(*) FROM t").firstRow { $0.int(at: 0) } == 1)
    }

    @Test func transactionRollsBackAndRethrowsTheBodysError() throws {
        let connection = try SQLiteConnection(path: path())
        try connection.execute("CREATE TABLE t (x)")
        #expect(throws: BodyFailure()) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (1)")
                throw BodyFailure()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.prepare("SELECT count(*) FROM t").firstRow { $0.int(at: 0) } == 0)
    }

    @Test func transactionRollsBackAfterAConstraintErrorInTheBody() throws {
        let connection = try SQLiteConnection(path: path())
        try connection.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (p REFERENCES parent(id))")
        let error = try #require(throws: SQLiteError.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO parent VALUES (1)")
                try connection.execute("INSERT INTO child VALUES (2)")
            }
        }
        #expect(error.code == .constraint, "foreign keys are enforced")
        #expect(try connection.prepare("SELECT count(*) FROM parent").firstRow { $0.int(at: 0) } == 0)
    }

    @Test func writerWaitsForTheBusyTimeoutThenFailsWithBusy() throws {
        let file = path()
        let holder = try SQLiteConnection(path: file)
        try holder.execute("CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
        let timeout = Duration.milliseconds(150)
        let waiter = try SQLiteConnection(path: file, busyTimeout: timeout)
        let clock = ContinuousClock()
        let start = clock.now
        let error = try #require(throws: SQLiteError.self) {
            try waiter.transaction { try waiter.execute("INSERT INTO t VALUES (2)") }
        }
        #expect(clock.now - start >= timeout)
        #expect(error.code == .busy)
        #expect(error.isBusyOrLocked)
        #expect(error.description.contains(file))
        #expect(
            try Self.failsWithBusy { try waiter.execute("INSERT INTO t VALUES (2)") },
            "a write outside a transaction must wait for the lock too")
        try holder.execute("COMMIT")
        try waiter.transaction { try waiter.execute("INSERT INTO t VALUES (2)") }
    }

    /// Whether `body` fails with `busy`, caught by primary code the way callers are expected to write it.
    /// Kept out of the test itself: next to a `#require(throws:)` expansion, such a `catch` crashes the
    /// Swift 6.3.1 compiler (SIL ownership verifier).
    static func failsWithBusy(_ body: () throws -> Void) throws -> Bool {
        do {
            try body()
        } catch SQLiteError.Code.busy {
            return true
        }
        return false
    }

    // MARK: Damaged and unusable files

    @Test func aFileThatIsNotSQLiteIsRefusedAtOpenNamingTheFile() throws {
        let file = path("notes.txt")
        try String(repeating: "these are plain text notes, not a database\n", count: 100)
            .write(toFile: file, atomically: true, encoding: .utf8)
        let error = try #require(throws: SQLiteError.self) { try SQLiteConnection(path: file) }
        #expect(error.code == .notADatabase)
        #expect(error.isCorruption)
        #expect(error.path == file)
        #expect(error.description.hasPrefix("\(file): file is not a database [SQLITE_NOTADB]"))
        #expect(!error.description.contains("\n"))
    }

    @Test func aTruncatedDatabaseIsReportedAsCorruptAtOpen() throws {
        let file = try makeDatabase()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        let size = try handle.seekToEnd()
        try handle.truncate(atOffset: size / 2)
        try handle.close()

        let error = try #require(throws: SQLiteError.self) { try SQLiteConnection(path: file, mode: .readOnly) }
        #expect(error.code == .corrupt)
        #expect(error.description.contains(file))
    }

    @Test func aCorruptPageIsReportedByTheIntegrityCheck() throws {
        let file = try makeDatabase()
        let healthy = try SQLiteConnection(path: file, mode: .readOnly)
        #expect(try healthy.integrityCheck() == [])
        try healthy.close()

        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
        let size = try handle.seekToEnd()
        // A whole page of garbage in the middle of the table's b-tree, page-aligned so it hits a page header.
        try handle.seek(toOffset: (size / 2) / 4096 * 4096)
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()

        let damaged = try SQLiteConnection(path: file, mode: .readOnly)
        do {
            let problems = try damaged.integrityCheck()
            #expect(!problems.isEmpty)
        } catch {
            #expect(error.isCorruption)
        }
        let error = try #require(throws: SQLiteError.self) {
            try damaged.prepare("SELECT sum(length(payload)) FROM item").mapRows { $0.int(at: 0) }
        }
        #expect(error.code == .corrupt)
    }

    @Test func writingThroughAReadOnlyConnectionFailsWithReadOnly() throws {
        let file = try makeDatabase(rows: 1)
        // Tests may run as root, where chmod 0444 does not stop writes; then the read-only path is
        // exercised through `.readOnly` mode instead of a write-protected file.
        let mode: SQLiteConnection.Mode
        if getuid() == 0 {
            mode = .readOnly
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: file)
            mode = .readWrite
        }
        let connection = try SQLiteConnection(path: file, mode: mode)
        #expect(try connection.prepare("SELECT count(*) FROM item").firstRow { $0.int(at: 0) } == 1)
        let error = try #require(throws: SQLiteError.self) {
            try connection.execute("INSERT INTO item (payload) VALUES (x'00')")
        }
        #expect(error.code == .readOnly)
        #expect(error.description.contains(file))
    }

    @Test func aMissingFileInReadOnlyModeCannotBeOpened() throws {
        let file = path("missing.sqlite")
        let error = try #require(throws: SQLiteError.self) { try SQLiteConnection(path: file, mode: .readOnly) }
        #expect(error.code == .cantOpen)
        #expect(error.description.hasPrefix(file))
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func userVersionIsStoredInTheFile() throws {
        let file = path()
        let connection = try SQLiteConnection(path: file)
        #expect(try connection.userVersion == 0)
        try connection.setUserVersion(12)
        try connection.close()
        #expect(try SQLiteConnection(path: file, mode: .readOnly).userVersion == 12)
        #expect(try sqliteError { try SQLiteConnection(path: file).setUserVersion(Int.max) }.code == .range)
    }

    // MARK: Migrations

    static let migrator = SQLiteMigrator(migrations: [
        SQLiteMigration(version: 1, sql: "CREATE TABLE log (step INTEGER); INSERT INTO log VALUES (1)"),
        SQLiteMigration(version: 2) { try $0.execute("INSERT INTO log VALUES (2)") },
        SQLiteMigration(version: 3, sql: "ALTER TABLE log ADD COLUMN note TEXT; INSERT INTO log VALUES (3, 'x')"),
    ])

    func loggedSteps(_ connection: SQLiteConnection) throws -> [Int] {
        try connection.prepare("SELECT step FROM log ORDER BY rowid").mapRows { $0.int(at: 0) }
    }

    @Test func migrationsApplyInOrderOnceEach() throws {
        let connection = try SQLiteConnection(path: path())
        #expect(try Self.migrator.migrate(connection) == [1, 2, 3])
        #expect(try connection.userVersion == 3)
        #expect(try Self.migrator.migrate(connection) == [])
        #expect(try loggedSteps(connection) == [1, 2, 3])
    }

    @Test func onlyPendingMigrationsRunAndAFailingOneLeavesTheVersionBehind() throws {
        let connection = try SQLiteConnection(path: path())
        let failing = SQLiteMigrator(
            migrations: Array(Self.migrator.migrations.prefix(2)) + [
                SQLiteMigration(version: 3) { connection in
                    try connection.execute("INSERT INTO log VALUES (3)")
                    throw BodyFailure()
                }
            ])
        #expect(throws: BodyFailure()) { try failing.migrate(connection) }
        #expect(try connection.userVersion == 2)
        #expect(try loggedSteps(connection) == [1, 2])
        #expect(try Self.migrator.migrate(connection) == [3])
        #expect(try loggedSteps(connection) == [1, 2, 3])
    }

    @Test func aNewerSchemaIsRefusedAndTheFileIsLeftByteForByte() throws {
        let file = path()
        let writer = try SQLiteConnection(path: file)
        try writer.execute("CREATE TABLE future (x)")
        try writer.setUserVersion(7)
        try writer.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: file))

        let connection = try SQLiteConnection(path: file)
        let error = try #require(throws: SQLiteSchemaTooNewError.self) { try Self.migrator.migrate(connection) }
        #expect(error.description == "\(file) was written by a newer version of cassette (schema 7, this build understands 3); upgrade cassette")
        #expect(try connection.userVersion == 7)
        try connection.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }

    // MARK: Executor

    @Test func actorCodeRunsOnTheExecutorQueueNotTheCooperativePool() async throws {
        let store = try await KeyValueStore(path: path())
        #expect(!store.executor.isCurrent)
        try await store.set("greeting", Data("hello".utf8))
        #expect(try await store.value(for: "greeting") == Data("hello".utf8))
        #expect(try await store.value(for: "absent") == nil)
        #expect(await store.isolationRunsOnExecutorQueue())
        #expect(try await store.executor.run { store.executor.isCurrent })
    }
}

/// The pattern the cassette store follows: an actor whose executor is an `SQLiteExecutor`, so every
/// blocking SQLite call happens on that executor's queue.
private actor KeyValueStore {
    nonisolated let executor: SQLiteExecutor
    private let connection: SQLiteConnection

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    init(path: String) async throws {
        let executor = SQLiteExecutor(label: "KeyValueStore")
        self.executor = executor
        // The actor is not isolated until every property is set, so opening goes through the queue explicitly.
        connection = try await executor.run {
            let connection = try SQLiteConnection(path: path)
            try connection.execute("CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
            return connection
        }
    }

    func set(_ key: String, _ value: Data) throws {
        try connection.cachedStatement("INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)").run(key, value)
    }

    func value(for key: String) throws -> Data? {
        let select = try connection.cachedStatement("SELECT value FROM kv WHERE key = ?")
        try select.bind(key)
        return try select.firstRow { $0.blob(at: 0) }
    }

    /// Checked through the queue-specific marker rather than `dispatchPrecondition`, so a regression
    /// fails the test instead of crashing the test run.
    func isolationRunsOnExecutorQueue() -> Bool {
        executor.isCurrent
    }
}
