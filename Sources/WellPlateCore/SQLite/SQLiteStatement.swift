import CSQLite
import Foundation

/// A prepared SQL statement: bind parameters (1-based), step, read columns (0-based).
///
/// Not `Sendable`: it belongs to its connection, which is used from one executor at a time.
/// Column accessors read the row the last `step()` produced; they follow SQLite's type conversions
/// (NULL reads as 0, "" or empty `Data`; use `isNull(at:)` to tell NULL apart).
final class SQLiteStatement {
    /// `nil` once finalized; SQLite treats a NULL statement as misuse instead of crashing.
    private(set) var handle: OpaquePointer?
    /// The SQL this statement was prepared from.
    let sql: String
    private let path: String
    private let lifetime: SQLiteConnectionLifetime

    init(handle: OpaquePointer, sql: String, path: String, lifetime: SQLiteConnectionLifetime) {
        self.handle = handle
        self.sql = sql
        self.path = path
        self.lifetime = lifetime
    }

    deinit {
        // sqlite3_finalize repeats the result of the last step, which step() already reported.
        sqlite3_finalize(handle)
    }

    /// Releases the statement; called by the connection when it closes so the database can close too.
    func finalize() {
        // See deinit: the result only repeats the last step's outcome.
        sqlite3_finalize(handle)
        handle = nil
    }

    // MARK: Binding

    /// Binds a 64-bit integer.
    func bind(_ value: Int64, at index: Int) throws(SQLiteError) {
        try check(sqlite3_bind_int64(try live(), Self.cIndex(index), value))
    }

    /// Binds an integer.
    func bind(_ value: Int, at index: Int) throws(SQLiteError) {
        try check(sqlite3_bind_int64(try live(), Self.cIndex(index), Int64(value)))
    }

    /// Binds a floating-point number.
    func bind(_ value: Double, at index: Int) throws(SQLiteError) {
        try check(sqlite3_bind_double(try live(), Self.cIndex(index), value))
    }

    /// Binds a boolean as the integer 0 or 1 (SQLite has no boolean type).
    func bind(_ value: Bool, at index: Int) throws(SQLiteError) {
        try check(sqlite3_bind_int64(try live(), Self.cIndex(index), value ? 1 : 0))
    }

    /// Binds UTF-8 text; SQLite copies it before returning.
    func bind(_ value: String, at index: Int) throws(SQLiteError) {
        let handle = try live()
        var value = value
        let rc = value.withUTF8 { bytes in
            // A non-nil pointer even when empty: a NULL pointer would bind SQL NULL instead of "".
            let start = UnsafeRawPointer(bytes.baseAddress) ?? UnsafeRawPointer(("" as StaticString).utf8Start)
            return sqlite3_bind_text64(
                handle, Self.cIndex(index), start.assumingMemoryBound(to: CChar.self),
                UInt64(bytes.count), csqlite_transient(), UInt8(SQLITE_UTF8)
            )
        }
        try check(rc)
    }

    /// Binds a BLOB; SQLite copies it before returning. An empty value binds an empty BLOB, not NULL.
    func bind(_ value: Data, at index: Int) throws(SQLiteError) {
        let handle = try live()
        let rc = value.withUnsafeBytes { bindBlob($0, to: handle, at: index) }
        try check(rc)
    }

    /// Binds a BLOB; SQLite copies it before returning. An empty value binds an empty BLOB, not NULL.
    func bind(_ value: [UInt8], at index: Int) throws(SQLiteError) {
        let handle = try live()
        let rc = value.withUnsafeBytes { bindBlob($0, to: handle, at: index) }
        try check(rc)
    }

    /// Binds a BLOB of `count` zero bytes that SQLite does not materialise when it is the row's
    /// last column; `SQLiteConnection.writeBlob` then fills it in place.
    func bindZeroBlob(count: Int, at index: Int) throws(SQLiteError) {
        try check(sqlite3_bind_zeroblob64(try live(), Self.cIndex(index), UInt64(max(0, count))))
    }

    /// Binds SQL `NULL`.
    func bindNull(at index: Int) throws(SQLiteError) {
        try check(sqlite3_bind_null(try live(), Self.cIndex(index)))
    }

    /// Binds any bindable value, or `NULL` for `nil`.
    func bind(_ value: (any SQLiteBindable)?, at index: Int) throws(SQLiteError) {
        if let value {
            try value.bind(to: self, at: index)
        } else {
            try bindNull(at: index)
        }
    }

    /// Resets the statement and binds `values` to parameters 1...n; the count must match the SQL's parameters.
    func bind(_ values: (any SQLiteBindable)?...) throws(SQLiteError) {
        try bind(values: values)
    }

    /// Array form of `bind(_:)`.
    func bind(values: [(any SQLiteBindable)?]) throws(SQLiteError) {
        let expected = Int(sqlite3_bind_parameter_count(try live()))
        guard values.count == expected else {
            throw SQLiteError.library(
                .range, "the statement has \(expected) parameter(s) but \(values.count) value(s) were given",
                sql: sql, path: path)
        }
        reset()
        try clearBindings()
        for (offset, value) in values.enumerated() {
            try bind(value, at: offset + 1)
        }
    }

    /// Sets every parameter back to NULL.
    func clearBindings() throws(SQLiteError) {
        try check(sqlite3_clear_bindings(try live()))
    }

    private func bindBlob(_ bytes: UnsafeRawBufferPointer, to handle: OpaquePointer, at index: Int) -> CInt {
        guard let start = bytes.baseAddress, !bytes.isEmpty else {
            // sqlite3_bind_blob with a NULL pointer binds NULL; an empty BLOB needs zeroblob(0).
            return sqlite3_bind_zeroblob(handle, Self.cIndex(index), 0)
        }
        return sqlite3_bind_blob64(handle, Self.cIndex(index), start, UInt64(bytes.count), csqlite_transient())
    }

    /// Out-of-range indexes are clamped so SQLite reports SQLITE_RANGE instead of a wrapped index binding the wrong slot.
    private static func cIndex(_ index: Int) -> CInt {
        CInt(clamping: index)
    }

    // MARK: Stepping

    /// Advances to the next row: `true` when a row is available, `false` when the statement has finished.
    func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(try live()) {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            return false
        case let rc:
            throw error(rc)
        }
    }

    /// Rewinds the statement so it can run again; bindings are kept.
    ///
    /// Not throwing: `sqlite3_reset` only repeats the failure of the last `step()`, which that call already threw.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Binds `values` (when any are given; otherwise the current bindings are used), runs the statement
    /// to completion, discarding any rows, and rewinds it.
    func run(_ values: (any SQLiteBindable)?...) throws(SQLiteError) {
        if !values.isEmpty {
            try bind(values: values)
        }
        defer { reset() }
        while try step() {}
    }

    /// Calls `body` for each remaining row, with the statement positioned on it, then rewinds the statement
    /// (also when `body` throws, so no read transaction stays open).
    func forEachRow(_ body: (SQLiteStatement) throws -> Void) throws {
        defer { reset() }
        while try step() {
            try body(self)
        }
    }

    /// The remaining rows, each converted by `transform`; rewinds the statement afterwards.
    func mapRows<T>(_ transform: (SQLiteStatement) throws -> T) throws -> [T] {
        var rows: [T] = []
        try forEachRow { rows.append(try transform($0)) }
        return rows
    }

    /// The first row converted by `transform`, or `nil` when there is none; rewinds the statement afterwards.
    func firstRow<T>(_ transform: (SQLiteStatement) throws -> T) throws -> T? {
        defer { reset() }
        guard try step() else { return nil }
        return try transform(self)
    }

    /// `firstRow` for readers that cannot fail, keeping the error type precise for internal callers.
    func firstValue<T>(_ read: (SQLiteStatement) -> T) throws(SQLiteError) -> T? {
        defer { reset() }
        guard try step() else { return nil }
        return read(self)
    }

    /// `mapRows` for readers that cannot fail, keeping the error type precise for internal callers.
    func allValues<T>(_ read: (SQLiteStatement) -> T) throws(SQLiteError) -> [T] {
        defer { reset() }
        var values: [T] = []
        while try step() {
            values.append(read(self))
        }
        return values
    }

    // MARK: Errors

    /// Some SQLite entry points dereference a NULL statement, so a finalized one is refused here; after
    /// `close()` SQLite would still run statements the caller holds, which this refuses too.
    private func live() throws(SQLiteError) -> OpaquePointer {
        guard let handle, lifetime.isOpen else {
            throw SQLiteError.library(
                .misuse, "statement used after its connection was closed; prepare it again on an open connection",
                sql: sql, path: path)
        }
        return handle
    }

    private func check(_ rc: CInt) throws(SQLiteError) {
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    private func error(_ rc: CInt) -> SQLiteError {
        SQLiteError.from(rc, db: handle.flatMap { sqlite3_db_handle($0) }, sql: sql, path: path)
    }
}
