import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// Schema 2's usage table: old files keep opening, usage adds up and follows deletions, and the
/// replay index attributes its answers to recordings by sequence policy.
@Suite("Recording usage")
final class UsageTrackingTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "usage")
    }

    /// A store as version 1 of the schema left it: only the first migration applied.
    func makeVersion1Store() throws {
        let connection = try SQLiteConnection(path: directory.path(), mode: .readWriteCreate)
        try SQLiteMigrator(migrations: [CassetteSchema.migrator.migrations[0]]).migrate(connection)
        try connection.execute(
            """
            INSERT INTO interactions (cassette, method, url, request_key, sequence, request_headers, status, response_headers, response_body, recorded_at, duration_ms)
            VALUES ('dev', 'GET', 'http://a.test/x', 'GET /x', 0, '', 200, '', x'00', 1750000000, 1)
            """)
        try connection.close()
    }

    @Test func aVersion1StoreOpensReadOnlyWithoutUsageAndUpgradesWhenWritten() async throws {
        try makeVersion1Store()
        let reader = try await CassetteStore.open(path: directory.path(), access: .readOnly)
        #expect(try await reader.count(cassette: nil) == 1)
        #expect(try await reader.usage(cassette: nil).isEmpty)
        try await reader.close()
        #expect(try SQLiteConnection(path: directory.path(), mode: .readOnly).userVersion == 1)

        let writer = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        let id = try #require(try await writer.interactions(cassette: "dev").first?.id)
        let first = Date(timeIntervalSince1970: 1_760_000_000)
        try await writer.addUsage([id: 2], at: first)
        try await writer.addUsage([id: 3, 999: 1], at: first.addingTimeInterval(60))
        #expect(try await writer.usage(cassette: "dev") == [id: RecordingUsage(replayCount: 5, lastReplayedAt: first.addingTimeInterval(60))])
        try await writer.delete(key: "GET /x", cassette: "dev")
        #expect(try await writer.usage(cassette: nil).isEmpty)
        try await writer.close()
        #expect(try SQLiteConnection(path: directory.path(), mode: .readOnly).userVersion == CassetteSchema.migrator.latestVersion)
    }

    @Test(arguments: [
        (SequencePolicy.repeatLast, [1, 4]),
        (SequencePolicy.cycle, [3, 2]),
        (SequencePolicy.fail, [1, 1]),
    ])
    func replayCountsAreAttributedToRecordingsBySequencePolicy(policy: SequencePolicy, expected: [Int]) {
        let recordings = (0..<2).map { position in
            Interaction(id: Int64(10 + position), cassette: "dev", method: .get, url: "http://a.test/x", key: "GET /x", sequence: position, statusCode: 200)
        }
        let index = ReplayIndex(cassette: "dev", interactions: recordings, sequencePolicy: policy)
        for _ in 0..<5 { _ = index.next(for: "GET /x") }
        let counts = index.replayCountsByRecording
        #expect([counts[10] ?? 0, counts[11] ?? 0] == expected)
    }
}
