import Foundation
import TestSupport
import Testing

@testable import WellPlateCore

/// Schema 9: the HTTP version a recording's client spoke, kept beside it for exports; a store
/// from before reads every recording as of an unknown version, read-only and once migrated.
@Suite("Recorded HTTP versions in the store")
final class HTTPVersionStoreTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "http-versions")
    }

    private func interaction(_ target: String, _ version: RecordedHTTPVersion?) -> Interaction {
        var interaction = Interaction(
            cassette: "dev", method: .get, url: "http://a.test\(target)", key: "GET \(target)", statusCode: 200, responseBody: Data("{}".utf8))
        interaction.httpVersion = version
        return interaction
    }

    @Test func eachRecordingReadsBackWithTheVersionItWasRecordedOverAndDeletesTakeIt() async throws {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        try await store.record(interaction("/two", .http2))
        try await store.record(interaction("/one", .http1_1))
        try await store.record(batch: [interaction("/unknown", nil)])
        let read = try await store.interactions(cassette: "dev")
        #expect(read.map(\.key) == ["GET /one", "GET /two", "GET /unknown"])
        #expect(read.map(\.httpVersion) == [.http1_1, .http2, nil])
        #expect(try await store.interactions(key: "GET /two", cassette: nil).first?.httpVersion == .http2)
        try await store.close()
        let connection = try SQLiteConnection(path: directory.path(), mode: .readWrite)
        try connection.execute("DELETE FROM interactions")
        #expect(try connection.prepare("SELECT count(*) FROM interaction_http_versions").firstRow { $0.int(at: 0) } == 0)
        try connection.close()
    }

    @Test func aStoreFromBeforeVersionsReadsAsUnknownReadOnlyAndOnceMigrated() async throws {
        let connection = try SQLiteConnection(path: directory.path(), mode: .readWriteCreate)
        try SQLiteMigrator(migrations: Array(CassetteSchema.migrator.migrations.prefix(8))).migrate(connection)
        try connection.close()
        let old = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        try await old.record(interaction("/before", nil))
        try await old.close()
        // A version-8 file, as a build from before wrote it (schema 10's column taken off too).
        let rewound = try SQLiteConnection(path: directory.path(), mode: .readWrite)
        try rewound.execute(
            """
            DROP TRIGGER interaction_http_versions_follow_deletes; DROP TABLE interaction_http_versions;
            ALTER TABLE grpc_calls DROP COLUMN end_offset_ms; PRAGMA user_version = 8
            """)
        try rewound.close()
        let reader = try await CassetteStore.open(path: directory.path(), access: .readOnly)
        #expect(try await reader.interactions(cassette: "dev").map(\.httpVersion) == [nil])
        try await reader.close()
        let writer = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        try await writer.record(interaction("/after", .http2))
        #expect(try await writer.interactions(cassette: "dev").map(\.httpVersion) == [.http2, nil])
        try await writer.close()
        #expect(try SQLiteConnection(path: directory.path(), mode: .readOnly).userVersion == CassetteSchema.migrator.latestVersion)
    }
}
