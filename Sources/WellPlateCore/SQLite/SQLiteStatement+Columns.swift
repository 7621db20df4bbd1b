import CSQLite
import Foundation

/// Reading the columns (0-based) of the row the last `step()` produced.
extension SQLiteStatement {
    /// The number of columns in a result row.
    var columnCount: Int {
        Int(sqlite3_column_count(handle))
    }

    /// The name of column `index` (0-based), as given by its `AS` clause or the table.
    func columnName(at index: Int) -> String {
        precondition(handle != nil, "columnName(at:) called on a finalized statement `\(sql)`")
        guard let name = sqlite3_column_name(handle, CInt(clamping: index)) else {
            preconditionFailure("SQLite returned no name for column \(index) of `\(sql)` (out of range or out of memory)")
        }
        return String(cString: name)
    }

    /// Whether column `index` of the current row is SQL NULL.
    func isNull(at index: Int) -> Bool {
        sqlite3_column_type(handle, CInt(clamping: index)) == SQLITE_NULL
    }

    /// Column `index` (0-based) as a 64-bit integer.
    func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(handle, CInt(clamping: index))
    }

    /// Column `index` (0-based) as an integer.
    func int(at index: Int) -> Int {
        Int(truncatingIfNeeded: sqlite3_column_int64(handle, CInt(clamping: index)))
    }

    /// Column `index` (0-based) as a floating-point number.
    func double(at index: Int) -> Double {
        sqlite3_column_double(handle, CInt(clamping: index))
    }

    /// Column `index` (0-based) as a boolean: non-zero integers read as `true`.
    func bool(at index: Int) -> Bool {
        sqlite3_column_int64(handle, CInt(clamping: index)) != 0
    }

    /// Column `index` (0-based) as UTF-8 text; NULL reads as "".
    func text(at index: Int) -> String {
        let column = CInt(clamping: index)
        // Order matters: sqlite3_column_bytes must follow the conversion done by sqlite3_column_text.
        guard let start = sqlite3_column_text(handle, column) else {
            checkNoMemory(column)
            return ""
        }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// Column `index`'s (0-based) text as UTF-8 bytes, valid only inside `body`: for readers that
    /// would otherwise make a `String` only to take it apart again.
    func withTextBytes<Result>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let column = CInt(clamping: index)
        guard let start = sqlite3_column_text(handle, column) else {
            checkNoMemory(column)
            return try body(UnsafeBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// Column `index`'s (0-based) bytes, valid only inside `body`; NULL reads as no bytes.
    func withBlobBytes<Result>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        let column = CInt(clamping: index)
        // Order matters: sqlite3_column_bytes must follow sqlite3_column_blob.
        guard let start = sqlite3_column_blob(handle, column) else {
            checkNoMemory(column)
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// A copy of column `index`'s (0-based) bytes; NULL and empty BLOBs read as empty `Data`.
    func blob(at index: Int) -> Data {
        let column = CInt(clamping: index)
        // Order matters: sqlite3_column_bytes must follow sqlite3_column_blob.
        guard let start = sqlite3_column_blob(handle, column) else {
            checkNoMemory(column)
            return Data()
        }
        return Data(bytes: start, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// SQLite signals an allocation failure only by a NULL pointer for a non-NULL value; Swift treats
    /// running out of memory as fatal everywhere else, so this does too rather than return wrong data.
    private func checkNoMemory(_ column: CInt) {
        guard sqlite3_column_type(handle, column) == SQLITE_NULL || sqlite3_column_bytes(handle, column) == 0 else {
            fatalError("SQLite ran out of memory reading column \(column) of `\(sql)`")
        }
    }
}
