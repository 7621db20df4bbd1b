import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// Schema 4 rebuilds `interactions` with `response_body` last (so large bodies are written in
/// place): an older store keeps every row, chunk list and usage count byte for byte, and its
/// indexes and triggers; a fresh store has the same layout.
@Suite("Schema 4: the response body is the last column")
final class ResponseBodyLastMigrationTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "body-last")
    }

    private static let columnsInOrder = [
        "id", "cassette", "method", "url", "request_key", "sequence", "request_headers", "request_body", "status",
        "response_headers", "content_encoding", "recorded_at", "duration_ms", "response_body",
    ]

    /// Every column of every row, as SQL literals (type and bytes included), in id order.
    private static func rows(_ connection: SQLiteConnection, _ table: String, orderedBy order: String) throws -> [[String]] {
        let columns = try connection.prepare("SELECT name FROM pragma_table_info('\(table)') ORDER BY name").allValues { $0.text(at: 0) }
        let list = columns.map { "quote(\($0))" }.joined(separator: ", ")
        return try connection.prepare("SELECT \(list) FROM \(table) ORDER BY \(order)").mapRows { row in
            columns.indices.map { row.text(at: $0) }
        }
    }

    private static func columnNames(_ connection: SQLiteConnection) throws -> [String] {
        try connection.prepare("SELECT name FROM pragma_table_info('interactions') ORDER BY cid").allValues { $0.text(at: 0) }
    }

    /// The indexes on `interactions` with their uniqueness and columns, and the triggers on it.
    private static func indexesAndTriggers(_ connection: SQLiteConnection) throws -> [String] {
        let indexes = try connection.prepare("SELECT name, \"unique\" FROM pragma_index_list('interactions') ORDER BY name")
            .mapRows { ($0.text(at: 0), $0.int(at: 1)) }
        let described = try indexes.map { name, unique in
            let columns = try connection.prepare("SELECT name FROM pragma_index_info('\(name)') ORDER BY seqno").allValues { $0.text(at: 0) }
            return "index \(name) unique=\(unique) (\(columns.joined(separator: ", ")))"
        }
        let triggers = try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'interactions' ORDER BY name")
            .allValues { "trigger " + $0.text(at: 0) }
        return described + triggers
    }

    /// A schema 3 store with rows of every shape: ids with gaps, NULL and empty columns, a body
    /// larger than the in-place size, chunk lists and usage counts.
    private func makeVersion3Store(largeBody: Data) throws -> String {
        let path = directory.path()
        let connection = try SQLiteConnection(path: path, mode: .readWriteCreate)
        try SQLiteMigrator(migrations: Array(CassetteSchema.migrator.migrations.prefix(3))).migrate(connection)
        #expect(try Self.columnNames(connection).last == "duration_ms")
        try connection.execute(
            """
            INSERT INTO interactions (id, cassette, method, url, request_key, sequence, request_headers, request_body,
                status, response_headers, response_body, content_encoding, recorded_at, duration_ms) VALUES
            (3, 'dev', 'GET', 'http://a.test/x', 'GET /x', 0, 'Accept: */*', NULL, 200, 'Content-Type: text/plain', x'00ff10', NULL, 1750000000.125, 1.5),
            (7, 'dev', 'POST', 'http://a.test/y', 'POST /y', 0, '', x'7b7d', 201, '', x'', 'gzip', 1750000001.5, 0),
            (8, 'dev', 'GET', 'http://a.test/x', 'GET /x', 1, '', x'', 304, '', x'', NULL, 1750000002, 2.25);
            INSERT INTO interaction_chunks (interaction_id, chunks) VALUES (3, '0:1,250:2');
            INSERT INTO interaction_usage (interaction_id, replay_count, last_replayed_at) VALUES (7, 4, 1750000003);
            """)
        let insert = try connection.prepare(
            """
            INSERT INTO interactions (id, cassette, method, url, request_key, sequence, request_headers, status,
                response_headers, response_body, recorded_at, duration_ms) VALUES (20, 'other', 'GET', 'http://b.test/big', 'GET /big', 0, '', 200, '', ?, 1750000004, 9)
            """)
        try insert.run(largeBody)
        try connection.close()
        return path
    }

    @Test func aVersion3StoreIsRebuiltKeepingEveryRowChunkUsageIndexAndTrigger() async throws {
        let largeBody = Data((0..<(CassetteStore.inPlaceBodySize + 4321)).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 3) })
        let path = try makeVersion3Store(largeBody: largeBody)
        let before = try SQLiteConnection(path: path, mode: .readOnly)
        let rowsBefore = try Self.rows(before, "interactions", orderedBy: "id")
        let chunksBefore = try Self.rows(before, "interaction_chunks", orderedBy: "interaction_id")
        let usageBefore = try Self.rows(before, "interaction_usage", orderedBy: "interaction_id")
        let indexesBefore = try Self.indexesAndTriggers(before)
        try before.close()
        #expect(rowsBefore.count == 4)
        #expect(indexesBefore.contains("index sqlite_autoindex_interactions_1 unique=1 (cassette, request_key, sequence)"))

        let store = try await CassetteStore.open(path: path, access: .readWrite)
        #expect(try await store.interactions(cassette: "other").first?.responseBody == largeBody)
        try await store.close()

        let after = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(try after.userVersion == CassetteSchema.migrator.latestVersion)
        #expect(try Self.columnNames(after) == Self.columnsInOrder)
        #expect(try Self.rows(after, "interactions", orderedBy: "id") == rowsBefore)
        #expect(try Self.rows(after, "interaction_chunks", orderedBy: "interaction_id") == chunksBefore)
        #expect(try Self.rows(after, "interaction_usage", orderedBy: "interaction_id") == usageBefore)
        // Every index and trigger kept; schema 9 adds the one that follows deletes into the HTTP versions.
        #expect(
            try Self.indexesAndTriggers(after).filter { $0 != "trigger interaction_http_versions_follow_deletes" } == indexesBefore)
        #expect(try after.prepare("PRAGMA integrity_check").allValues { $0.text(at: 0) } == ["ok"])
        try after.close()

        // The recreated triggers still follow deletes; the recreated UNIQUE still numbers sequences.
        let writer = try await CassetteStore.open(path: path, access: .readWrite)
        try await writer.delete(key: "GET /x", cassette: "dev")
        #expect(try await writer.chunks(ofInteraction: 3) == nil)
        let next = try await writer.record(Interaction(cassette: "dev", method: .post, url: "http://a.test/y", key: "POST /y", statusCode: 201))
        #expect(next.sequence == 1)
        try await writer.close()
    }

    @Test func aFreshStoreHasTheBodyLastWithTheSameIndexesAndTriggers() async throws {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        try await store.close()
        let connection = try SQLiteConnection(path: directory.path(), mode: .readOnly)
        #expect(try Self.columnNames(connection) == Self.columnsInOrder)
        #expect(
            try Self.indexesAndTriggers(connection) == [
                "index interactions_by_recorded_at unique=0 (recorded_at)",
                "index sqlite_autoindex_interactions_1 unique=1 (cassette, request_key, sequence)",
                "trigger interaction_chunks_follow_deletes",
                "trigger interaction_http_versions_follow_deletes",
                "trigger interaction_usage_follows_deletes",
            ])
        try connection.close()
    }

    @Test func aVersion3StoreOpenedReadOnlyIsReadAndLeftAsItIs() async throws {
        let largeBody = Data(repeating: 0xA5, count: CassetteStore.inPlaceBodySize)
        let path = try makeVersion3Store(largeBody: largeBody)
        let reader = try await CassetteStore.open(path: path, access: .readOnly)
        let index = try await reader.replayIndex(cassette: "other", sequencePolicy: .repeatLast)
        #expect(index.peek("GET /big")?.responseBody == largeBody)
        #expect(try await reader.chunks(ofInteraction: 3) == [ResponseChunk(offset: .zero, size: 1), ResponseChunk(offset: .milliseconds(250), size: 2)])
        try await reader.close()
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(try connection.userVersion == 3)
        #expect(try Self.columnNames(connection).last == "duration_ms")
        try connection.close()
    }
}
