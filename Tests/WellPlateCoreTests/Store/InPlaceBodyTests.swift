import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// Large response bodies go into their row as a zeroblob filled in place (`CassetteStore.insert`):
/// byte-exact at and around the threshold, readable for replay, and all or nothing when the
/// writing fails.
@Suite("Large bodies written in place")
final class InPlaceBodyTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "in-place")
    }

    private func download(_ path: String, body: Data) -> Interaction {
        Interaction(
            cassette: "dev", method: .get, url: "http://a.test\(path)", key: "GET \(path)", statusCode: 200,
            responseHeaders: [.contentType: "application/octet-stream"], responseBody: body,
            chunks: [ResponseChunk(offset: .zero, size: body.count)])
    }

    private static func body(count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    @Test(arguments: [CassetteStore.inPlaceBodySize - 1, CassetteStore.inPlaceBodySize, 3 * CassetteStore.inPlaceBodySize + 17])
    func aBodyAroundTheThresholdIsStoredByteExactAndReplays(count: Int) async throws {
        let body = Self.body(count: count, seed: UInt8(count % 251))
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        let stored = try await store.record(download("/file", body: body))
        #expect(stored.responseBody == body)
        #expect(try await store.interactions(cassette: "dev").map(\.responseBody) == [body])
        let index = try await store.replayIndex(cassette: "dev", sequencePolicy: .repeatLast)
        #expect(index.peek("GET /file")?.responseBody == body)
        #expect(try await store.chunks(ofInteraction: try #require(stored.id)) == [ResponseChunk(offset: .zero, size: count)])
        try await store.close()
    }

    @Test func aBodyThatCannotBeWrittenLeavesNothingHalfStored() async throws {
        let path = directory.path()
        let small = Data("{}".utf8)
        let store = try await CassetteStore.open(path: path, access: .readWrite)
        try await store.record(download("/small", body: small))
        try await store.close()
        // A real failure between the insert and the writing: the row's body no longer has the
        // size that was inserted, so the writing refuses it.
        let connection = try SQLiteConnection(path: path, mode: .readWrite)
        try connection.execute(
            """
            CREATE TRIGGER shrink_large_bodies AFTER INSERT ON interactions WHEN length(new.response_body) >= \(CassetteStore.inPlaceBodySize)
            BEGIN UPDATE interactions SET response_body = x'00' WHERE id = new.id; END
            """)
        try connection.close()

        let writer = try await CassetteStore.open(path: path, access: .readWrite)
        let large = Self.body(count: CassetteStore.inPlaceBodySize * 2, seed: 9)
        await #expect(throws: CassetteStoreError.self) {
            try await writer.record(self.download("/large", body: large))
        }
        #expect(try await writer.interactions(cassette: "dev").map(\.key) == ["GET /small"])
        #expect(try await writer.integrityCheck().isEmpty)
        // The failed transaction is gone: the next recording commits normally.
        let next = try await writer.record(download("/after", body: small))
        #expect(try await writer.chunks(ofInteraction: try #require(next.id)) == [ResponseChunk(offset: .zero, size: small.count)])
        #expect(try await writer.interactions(cassette: "dev").map(\.key).sorted() == ["GET /after", "GET /small"])
        try await writer.close()

        let check = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(try check.prepare("SELECT count(*) FROM interaction_chunks").firstValue { $0.int(at: 0) } == 2)
        try check.close()
    }
}
