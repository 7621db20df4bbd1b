import CSQLite
import Foundation

/// Incremental BLOB I/O: filling a BLOB in place, so a large value never has to sit in memory a
/// second time inside SQLite.
extension SQLiteConnection {
    /// Writes `bytes` over the BLOB in `table`.`column` of row `row`, which must already hold
    /// exactly `bytes.count` bytes (inserted as `zeroblob(n)`, see `SQLiteStatement.bindZeroBlob`),
    /// `pieceSize` bytes per call. Runs inside the caller's transaction, so a failure leaves the
    /// row for the caller's rollback to remove.
    func writeBlob(
        _ bytes: UnsafeRawBufferPointer, table: String, column: String, row: Int64,
        pieceSize: Int = 1 << 20
    ) throws(SQLiteError) {
        precondition(pieceSize > 0, "pieceSize must be positive")
        let db = try handle()
        let what = "\(table).\(column) of row \(row)"
        guard bytes.count <= Int(CInt.max) else {
            throw SQLiteError.library(.tooBig, "\(bytes.count) bytes do not fit in one BLOB (\(what))", path: path)
        }
        var blob: OpaquePointer?
        let opened = sqlite3_blob_open(db, "main", table, column, row, 1, &blob)
        guard opened == SQLITE_OK, let blob else {
            // On failure SQLite sets the handle to NULL; closing NULL does nothing.
            sqlite3_blob_close(blob)
            throw SQLiteError.from(opened == SQLITE_OK ? SQLITE_NOMEM : opened, db: db, sql: nil, path: path)
        }
        var failure: SQLiteError?
        let size = Int(sqlite3_blob_bytes(blob))
        if size != bytes.count {
            failure = .library(
                .mismatch,
                "\(what) holds \(size) bytes, not the \(bytes.count) to write; "
                    + "insert it as zeroblob(\(bytes.count)) first", path: path)
        } else if let start = bytes.baseAddress {
            var offset = 0
            while offset < bytes.count {
                let count = min(pieceSize, bytes.count - offset)
                let rc = sqlite3_blob_write(blob, start + offset, CInt(count), CInt(offset))
                guard rc == SQLITE_OK else {
                    failure = .from(rc, db: db, sql: nil, path: path)
                    break
                }
                offset += count
            }
        }
        // Closing a BLOB that was written can report a deferred write failure; the first failure wins.
        let closed = sqlite3_blob_close(blob)
        if let failure { throw failure }
        try check(closed)
    }
}
