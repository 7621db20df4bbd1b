import CSQLite
import Foundation

/// A BLOB parameter of zeros, filled afterwards with `SQLiteConnection.writeBlob`.
struct SQLiteZeroBlob: SQLiteBindable {
    let count: Int

    func bind(to statement: SQLiteStatement, at index: Int) throws(SQLiteError) {
        try statement.bindZeroBlob(count: count, at: index)
    }
}

extension SQLiteConnection {
    /// Writes `bytes` into a BLOB inserted as `SQLiteZeroBlob`, a piece at a time. Binding a large
    /// value makes SQLite copy it and assemble the row around it in memory (two more copies of the
    /// body); incremental I/O goes through the page cache only. The caller holds the transaction.
    func writeBlob(_ bytes: Data, table: String, column: String, row: Int64) throws(SQLiteError) {
        let db = try handle()
        var blob: OpaquePointer?
        try check(sqlite3_blob_open(db, "main", table, column, row, 1, &blob))
        defer { sqlite3_blob_close(blob) }
        let piece = 1 << 20
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + piece)
            let rc = bytes[bytes.startIndex + offset ..< bytes.startIndex + end].withUnsafeBytes { raw in
                sqlite3_blob_write(blob, raw.baseAddress, CInt(raw.count), CInt(offset))
            }
            try check(rc)
            offset = end
        }
    }
}
