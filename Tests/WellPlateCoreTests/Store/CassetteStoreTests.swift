import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// What one recorded exchange leaves in the store, and how the store file is versioned.
@Suite("Cassette store")
final class CassetteStoreTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "cassette-store")
    }

    var store: String { directory.path() }

    @Test func aRecordedExchangeStoresEveryPartOfTheRequestAndResponse() async throws {
        try await withSampleAPI { base in
            let sentBody = Data((0..<512).map { UInt8(truncatingIfNeeded: $0) })
            var headers = HTTPFields()
            headers[.contentType] = "application/octet-stream"
            headers[HTTPField.Name("X-Trace")!] = "trace-7"
            let url = base.appending(pathAndQuery: "/api/echo?b=2&a=1")
            let before = Date()
            let (live, elapsed) = try await withRecordingTransport(path: store, mode: .missing) { transport in
                let clock = ContinuousClock()
                let start = clock.now
                let response = try await transport.send(TransportRequest(method: .post, url: url, headerFields: headers, body: sentBody))
                return (response, clock.now - start)
            }
            let after = Date()
            let rows = try await storedInteractions(store)
            try #require(rows.count == 1)
            let row = rows[0]
            #expect(row.cassette == "dev")
            #expect(row.method == .post)
            #expect(row.url == url.absoluteString)
            #expect(row.key == RequestKey(method: .post, url: url, headerFields: headers, body: sentBody).rawValue)
            #expect(row.key.hasPrefix("POST /api/echo?a=1&b=2 body:sha256:"))
            #expect(row.sequence == 0)
            #expect(row.requestHeaders[HTTPField.Name("X-Trace")!] == "trace-7")
            #expect(row.requestHeaders[.contentType] == "application/octet-stream")
            #expect(row.requestBody == sentBody)
            #expect(row.statusCode == 200)
            #expect(row.responseHeaders[.contentType] == live.headerFields[.contentType])
            #expect(row.responseHeaders[.contentType]?.hasPrefix("application/json") == true)
            #expect(row.responseHeaders[.contentLength] == String(live.body.count))
            #expect(row.responseBody == live.body)
            #expect(row.recordedAt >= before.addingTimeInterval(-0.001) && row.recordedAt <= after)
            #expect(row.duration > .zero && row.duration <= elapsed)
        }
    }

    @Test func binaryResponseBodiesAreStoredAsBlobsByteForByte() async throws {
        try await withSampleAPI { base in
            let size = 70_000
            let live = try await withRecordingTransport(path: store, mode: .missing) { transport in
                try await transport.send(.get, base, "/api/binary?size=\(size)")
            }
            let expected = Data((0..<size).map { UInt8(truncatingIfNeeded: $0) })
            #expect(live.body == expected)
            #expect(try await storedInteractions(store).map(\.responseBody) == [expected])
            let connection = try SQLiteConnection(path: store, mode: .readOnly)
            let types = try connection.prepare("SELECT typeof(response_body), length(response_body) FROM interactions")
                .firstRow { "\($0.text(at: 0)) \($0.int(at: 1))" }
            #expect(types == "blob \(size)")
            try connection.close()
        }
    }

    @Test func compressedResponsesAreStoredDecodedAndReplayWithoutContentEncoding() async throws {
        try await withSampleAPI { base in
            let live = try await withRecordingTransport(path: store, mode: .missing) { transport in
                try await transport.send(.get, base, "/api/users")
            }
            #expect(live.decodedContentEncoding == "gzip")
            let row = try #require(try await storedInteractions(store).first)
            #expect(row.contentEncoding == "gzip")
            #expect(row.responseBody == live.body)
            #expect(row.responseBody.first == UInt8(ascii: "["))
            #expect(row.responseHeaders[.contentEncoding] == nil)
            #expect(row.responseHeaders[.contentLength] == String(row.responseBody.count))

            let replayed = try await replayTransport(path: store).send(.get, base, "/api/users")
            #expect(replayed.body == live.body)
            #expect(replayed.headerFields[.contentEncoding] == nil)
            #expect(replayed.headerFields[.contentLength] == String(replayed.body.count))
            #expect(replayed.decodedContentEncoding == "gzip")
            #expect(try JSONCoding.decode([User].self, from: replayed.body).map(\.id) == [1, 2, 3])
        }
    }

    @Test func eachInteractionIsCommittedBeforeItsResponseIsReturned() async throws {
        try await withSampleAPI { base in
            try await withRecordingTransport(path: store, mode: .missing) { transport in
                for count in 1...3 {
                    _ = try await transport.flaky(base, "n\(count)")
                    // A separate connection sees only committed transactions.
                    #expect(try await storedInteractions(store).count == count)
                }
            }
        }
    }

    @Test func aNewStoreRecordsItsSchemaVersionInUserVersion() async throws {
        try await CassetteStore.open(path: store, access: .readWrite).close()
        let connection = try SQLiteConnection(path: store, mode: .readOnly)
        #expect(try connection.userVersion == CassetteSchema.migrator.latestVersion)
        #expect(CassetteSchema.migrator.latestVersion >= 1)
        #expect(
            try connection.tableNames() == [
                "cassettes", "conversation_messages", "conversation_usage", "conversations", "grpc_calls", "interaction_chunks",
                "interaction_http_versions", "interaction_usage", "interactions", "learned_secrets", "proto_files",
            ])
        try connection.close()
    }

    @Test(arguments: ["wal", "delete"])
    func aStoreFromANewerVersionIsRefusedAndNeverRewritten(journalMode: String) async throws {
        try await fillStore(store, with: [Recordings.make(.get, "/api/health")])
        let newer = CassetteSchema.migrator.latestVersion + 1
        let connection = try SQLiteConnection(path: store, mode: .readWrite)
        try connection.setUserVersion(newer)
        _ = try connection.prepare("PRAGMA journal_mode=\(journalMode)").firstRow { $0.text(at: 0) }
        try connection.close()
        let before = try #require(directory.bytes("cassettes.db"))

        for access in [CassetteStore.Access.readWrite, .readOnly] {
            let error = try await #require(throws: CassetteStoreError.self) { try await CassetteStore.open(path: self.store, access: access) }
            #expect(error.kind == .schemaTooNew)
            #expect(
                error.message == "\(store) was written by a newer version of cassette (schema \(newer), this build understands \(newer - 1)); upgrade cassette")
        }
        await #expect(throws: CassetteStoreError.self) { try await ReplayAPIClient.open(path: self.store) }
        await #expect(throws: CassetteStoreError.self) {
            try await withRecordingTransport(path: self.store, mode: .missing) { _ in }
        }
        #expect(directory.bytes("cassettes.db") == before)
    }
}
