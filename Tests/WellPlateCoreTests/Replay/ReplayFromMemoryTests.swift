import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Replay reads SQLite once, when the cassette is opened; every request after that is answered
/// from memory, so the file can be closed and even deleted.
@Suite("Replay from memory")
final class ReplayFromMemoryTests {
    let directory: TemporaryDirectory
    let base = URL(string: "http://127.0.0.1:8081")!

    init() throws {
        directory = try TemporaryDirectory(prefix: "replay-memory")
    }

    @Test func replayKeepsAnsweringAfterTheStoreIsClosedAndItsFilesDeleted() async throws {
        let store = directory.path()
        try await fillStore(
            store,
            with: [
                Recordings.make(.get, "/api/health", body: Data(#"{"status":"ok","version":"1.0.0","timestamp":"2026-01-01T00:00:00Z"}"#.utf8)),
                Recordings.make(.get, "/api/users/1", status: 404, body: Data(#"{"error":"not_found","message":"User 1 not found"}"#.utf8)),
            ])
        let client = try await ReplayAPIClient.open(path: store, cassette: "dev")
        try await client.session.store.close()
        for name in try directory.fileNames() {
            try FileManager.default.removeItem(atPath: directory.path(name))
        }
        #expect(try directory.fileNames() == [])
        await #expect(throws: CassetteStoreError.self, "the store itself can no longer be read") {
            try await client.session.store.count(cassette: nil)
        }

        for _ in 0..<3 {
            let health = try await client.get(url: base.appending(pathAndQuery: "/api/health"), responseType: Health.self)
            #expect(health.status == "ok")
            let error = try await #require(throws: APIError.self) {
                try await client.get(url: self.base.appending(pathAndQuery: "/api/users/1"), responseType: User.self)
            }
            #expect(error.statusCode == 404)
        }
        let miss = try await #require(throws: CassetteMiss.self) {
            try await client.get(url: self.base.appending(pathAndQuery: "/api/users/2"), responseType: User.self)
        }
        #expect(miss.nearest.first?.recorded.rawValue == "GET /api/users/1")
    }
}
