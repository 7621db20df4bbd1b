import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// Incremental BLOB writing (`SQLiteConnection.writeBlob`): a zeroblob filled in place, piece by
/// piece, and the failures that leave the caller's transaction to roll back.
@Suite("SQLite BLOB writing")
final class SQLiteBlobTests {
    let directory: TemporaryDirectory
    let connection: SQLiteConnection

    init() throws {
        directory = try TemporaryDirectory(prefix: "sqlite-blob")
        connection = try SQLiteConnection(path: directory.path("blob.sqlite"))
        try connection.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, payload BLOB NOT NULL)")
    }

    /// Inserts a row whose payload is `count` zero bytes, not materialised, and returns its id.
    private func insertZeroBlob(count: Int) throws -> Int64 {
        let insert = try connection.prepare("INSERT INTO item (name, payload) VALUES (?, ?)")
        try insert.bind("row", at: 1)
        try insert.bindZeroBlob(count: count, at: 2)
        try insert.run()
        return connection.lastInsertRowID
    }

    private func payload(of id: Int64) throws -> Data? {
        let select = try connection.prepare("SELECT payload FROM item WHERE id = ?")
        try select.bind(id, at: 1)
        return try select.firstRow { $0.blob(at: 0) }
    }

    @Test func aZeroBlobIsFilledInPlaceAcrossPieceBoundaries() throws {
        let bytes = Data((0..<10_007).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) })
        let id = try insertZeroBlob(count: bytes.count)
        try bytes.withUnsafeBytes { try connection.writeBlob($0, table: "item", column: "payload", row: id, pieceSize: 1000) }
        #expect(try payload(of: id) == bytes)
    }

    @Test func anEmptyBodyWritesNothing() throws {
        let id = try insertZeroBlob(count: 0)
        try Data().withUnsafeBytes { try connection.writeBlob($0, table: "item", column: "payload", row: id) }
        #expect(try payload(of: id) == Data())
    }

    @Test func aBlobOfAnotherSizeIsRefusedAndTheTransactionRollsBack() throws {
        let bytes = Data(repeating: 7, count: 100)
        let error = try #require(throws: SQLiteError.self) {
            try connection.transaction {
                let id = try insertZeroBlob(count: 99)
                try bytes.withUnsafeBytes { try connection.writeBlob($0, table: "item", column: "payload", row: id) }
            }
        }
        #expect(error.code == .mismatch)
        #expect(error.description.contains("zeroblob(100)"))
        #expect(try connection.prepare("SELECT count(*) FROM item").firstValue { $0.int(at: 0) } == 0)
        #expect(!connection.isInTransaction)
    }

    @Test func aMissingRowIsSQLitesError() throws {
        let error = try #require(throws: SQLiteError.self) {
            try Data([1]).withUnsafeBytes { try connection.writeBlob($0, table: "item", column: "payload", row: 42) }
        }
        #expect(error.code == .error)
        #expect(error.path == directory.path("blob.sqlite"))
    }
}
