import Foundation
import TestSupport
import Testing

@testable import WellPlateCore

/// Schema 10's end offsets of gRPC calls: when the upstream reset a call's stream, stored beside
/// its heads and read back; a store from before opens read-only with none (its calls replay as
/// they did) and is upgraded by the first write.
@Suite("gRPC calls' end offsets in the store")
final class GRPCEndOffsetStoreTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "grpc-end-offset")
    }

    private func resetCall(endOffset: Double?) -> Conversation {
        Conversation(
            cassette: "dev", url: "/shop.v1.Catalog/ListItems", key: "POST /shop.v1.Catalog/ListItems", requestHeaders: [:], subprotocol: nil,
            extensions: nil, end: .dropped(by: .server, reset: HTTP2ResetCode(rawValue: 2)),
            grpc: GRPCCallHeads(responseHeaders: [:], trailers: [:], endOffsetMilliseconds: endOffset))
    }

    @Test func aResetsMomentIsStoredAndReadBack() async throws {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        let begun = try await store.beginConversation(resetCall(endOffset: nil))
        let id = try #require(begun.id)
        try await store.storeGRPCHeads(GRPCCallHeads(responseHeaders: [:], trailers: [:], endOffsetMilliseconds: 412.5), conversation: id)
        #expect(try await store.conversation(id: id)?.grpc?.endOffsetMilliseconds == 412.5)
        try await store.close()
    }

    @Test func aStoreFromBeforeEndOffsetsReadsWithoutThemReadOnlyAndIsUpgradedByTheFirstWrite() async throws {
        let connection = try SQLiteConnection(path: directory.path(), mode: .readWriteCreate)
        try SQLiteMigrator(migrations: Array(CassetteSchema.migrator.migrations.prefix(9))).migrate(connection)
        try connection.execute(
            """
            INSERT INTO conversations (id, cassette, url, request_key, sequence, request_headers, recorded_at, end_kind, end_by)
            VALUES (1, 'dev', '/shop.v1.Catalog/ListItems', 'POST /shop.v1.Catalog/ListItems', 0, '', 0, 'dropped', 'server');
            INSERT INTO grpc_calls (conversation_id, response_headers, trailers) VALUES (1, '', '');
            """)
        try connection.close()
        let reader = try await CassetteStore.open(path: directory.path(), access: .readOnly)
        let old = try #require(try await reader.conversation(id: 1))
        #expect(old.grpc != nil && old.grpc?.endOffsetMilliseconds == nil, "\(String(describing: old.grpc))")
        try await reader.close()
        #expect(try SQLiteConnection(path: directory.path(), mode: .readOnly).userVersion == 9)

        let writer = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        let begun = try await writer.beginConversation(resetCall(endOffset: 30))
        try await writer.storeGRPCHeads(try #require(begun.grpc), conversation: try #require(begun.id))
        #expect(try await writer.conversation(id: try #require(begun.id))?.grpc?.endOffsetMilliseconds == 30)
        try await writer.close()
        #expect(try SQLiteConnection(path: directory.path(), mode: .readOnly).userVersion == CassetteSchema.migrator.latestVersion)
    }
}
