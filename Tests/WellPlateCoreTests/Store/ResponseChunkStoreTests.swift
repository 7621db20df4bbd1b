import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// Schema 3's chunk times of streamed recordings: stored with the recording, loaded for replay,
/// gone with it; stores from before keep replaying; large bodies are written in place.
@Suite("Streamed recordings in the store")
final class ResponseChunkStoreTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "chunks")
    }

    private func streamed(body: Data, chunks: [ResponseChunk]?) -> Interaction {
        Interaction(
            cassette: "dev", method: .get, url: "http://a.test/events", key: "GET /events", statusCode: 200,
            responseHeaders: [.contentType: "text/event-stream"], responseBody: body, chunks: chunks)
    }

    @Test func chunkTimesAreStoredLoadedForReplayAndDeletedWithTheRecording() async throws {
        let chunks = [ResponseChunk(offset: .zero, size: 4), ResponseChunk(offset: .milliseconds(250), size: 6)]
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        let stored = try await store.record(streamed(body: Data("one\ntwo!!\n".utf8), chunks: chunks))
        let id = try #require(stored.id)
        #expect(try await store.chunks(ofInteraction: id) == chunks)
        let index = try await store.replayIndex(cassette: "dev", sequencePolicy: .repeatLast)
        #expect(index.peek("GET /events")?.chunks == chunks)
        try await store.delete(key: "GET /events", cassette: "dev")
        #expect(try await store.chunks(ofInteraction: id) == nil)
        try await store.close()
    }

    @Test func aRecordingMadeWholeHasNoChunks() async throws {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        let stored = try await store.record(streamed(body: Data("{}".utf8), chunks: nil))
        #expect(try await store.chunks(ofInteraction: try #require(stored.id)) == nil)
        #expect(try await store.replayIndex(cassette: "dev", sequencePolicy: .repeatLast).peek("GET /events")?.chunks == nil)
        try await store.close()
    }

    @Test func aStoreFromBeforeStreamingReplaysReadOnly() async throws {
        let connection = try SQLiteConnection(path: directory.path(), mode: .readWriteCreate)
        try SQLiteMigrator(migrations: Array(CassetteSchema.migrator.migrations.prefix(2))).migrate(connection)
        try connection.execute(
            """
            INSERT INTO interactions (cassette, method, url, request_key, sequence, request_headers, status, response_headers, response_body, recorded_at, duration_ms)
            VALUES ('dev', 'GET', 'http://a.test/x', 'GET /x', 0, '', 200, '', x'00', 1750000000, 1)
            """)
        try connection.close()
        let reader = try await CassetteStore.open(path: directory.path(), access: .readOnly)
        let index = try await reader.replayIndex(cassette: "dev", sequencePolicy: .repeatLast)
        #expect(index.peek("GET /x")?.responseBody == Data([0]))
        #expect(index.peek("GET /x")?.chunks == nil)
        #expect(try await reader.chunks(ofInteraction: 1) == nil)
        try await reader.close()
    }

    @Test func aBodyAboveTheInPlaceSizeIsStoredByteExact() async throws {
        let size = CassetteStore.inPlaceBodySize * 2 + 12_345
        let body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        try await store.record(streamed(body: body, chunks: [ResponseChunk(offset: .zero, size: size)]))
        #expect(try await store.interactions(cassette: "dev").first?.responseBody == body)
        try await store.close()
    }

    @Test func chunkListsRoundTripAsText() {
        let chunks = [ResponseChunk(offset: .microseconds(1500), size: 1), ResponseChunk(offset: .seconds(2), size: 65536)]
        #expect(ResponseChunk.decode(ResponseChunk.encode(chunks)) == chunks)
        #expect(ResponseChunk.decode("nonsense") == nil)
        #expect(ResponseChunk.pieces(ofBodyCount: 10, by: chunks).map(\.bytes) == [0..<1, 1..<10])
        #expect(ResponseChunk.pieces(ofBodyCount: 70_000, by: chunks).map(\.bytes) == [0..<1, 1..<70_000])
    }
}
