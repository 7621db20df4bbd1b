import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette record` against the real sample API, then `cassette replay` with the API stopped:
/// the replayed answers must be the recorded ones, byte for byte.
@Suite("Proxy record then replay")
final class ProxyRecordReplayTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    struct Request: Sendable, CustomStringConvertible {
        var method: HTTPMethod = .get
        var target: String
        var headers: HTTPFields = [:]
        var body: Data?

        static func get(_ target: String, headers: HTTPFields = [:]) -> Request {
            Request(target: target, headers: headers)
        }

        static func post(_ target: String, json: String) -> Request {
            Request(method: .post, target: target, headers: [.contentType: "application/json"], body: Data(json.utf8))
        }

        var description: String { "\(method.rawValue) \(target)" }
    }

    static let session: [Request] = [
        .get("/api/users"),
        .get("/api/users/2"),
        .post("/api/nutrition/analyze", json: #"{"food":"apple","grams":100}"#),
        .get("/api/nutrition/history", headers: [.acceptEncoding: "gzip"]),
        .get("/api/binary?size=70000"),
        .get("/api/status/404"),
        .get("/api/status/500"),
        .get("/api/status/204"),
    ]

    /// The sample API the last `record` used (stopped by now).
    var upstream: URL?

    /// Records `requests` through a recorder in front of a fresh sample API, stops both, and
    /// returns what the client got while recording.
    @discardableResult
    func record(_ requests: [Request]) async throws -> [TransportResponse] {
        try await withSampleAPI { api async throws in
            upstream = api
            return try await withInProcessRecorder(upstream: api, store: store) { recorder async throws in
                var responses: [TransportResponse] = []
                for request in requests {
                    let response = try await recorder.send(request.method, request.target, headers: request.headers, body: request.body)
                    #expect(response.cassetteSource == "recorded", "\(request)")
                    responses.append(response)
                }
                await recorder.stop()
                #expect(recorder.summaryLine == "recorded \(requests.count), replayed 0, missed 0, unused recordings 0")
                return responses
            }
        }
    }

    @Test func replayWithTheUpstreamStoppedAnswersExactlyAsRecorded() async throws {
        let recorded = try await record(Self.session)
        let stoppedAPI = try #require(upstream)
        await #expect(throws: TransportError.self, "the sample API of the recording must be gone") {
            try await ProxyClient.send(.get, stoppedAPI.appending(pathAndQuery: "/api/health"))
        }

        try await withInProcessReplayer(store: store) { replayer async throws in
            for (request, original) in zip(Self.session, recorded) {
                let replayed = try await replayer.send(request.method, request.target, headers: request.headers, body: request.body)
                #expect(replayed.cassetteSource == "hit", "\(request)")
                #expect(replayed.statusCode == original.statusCode, "\(request)")
                #expect(replayed.body == original.body, "\(request)")
                #expect(replayed.headerFields[.contentType] == original.headerFields[.contentType], "\(request)")
                #expect(replayed.headerFields[.contentEncoding] == nil, "\(request)")
                if replayed.statusCode == 204 {
                    #expect(replayed.headerFields[.contentLength] == nil)
                    #expect(replayed.body.isEmpty)
                } else {
                    #expect(replayed.headerFields[.contentLength] == String(replayed.body.count), "\(request)")
                }
            }
            await replayer.stop()
            #expect(replayer.summaryLine == "recorded 0, replayed \(Self.session.count), missed 0, unused recordings 0")
        }
    }

    @Test func binaryBodiesReplayByteForByte() async throws {
        let recorded = try await record([.get("/api/binary?size=70000")])
        #expect(recorded.first?.body == binaryPattern(size: 70000))
        try await withInProcessReplayer(store: store) { replayer async throws in
            let replayed = try await replayer.get("/api/binary?size=70000")
            #expect(replayed.statusCode == 200)
            #expect(replayed.headerFields[.contentType] == "application/octet-stream")
            #expect(replayed.headerFields[.contentLength] == "70000")
            #expect(replayed.body == binaryPattern(size: 70000))
        }
    }

    @Test(arguments: [
        (204, ""),
        (404, #"{"error":"not_found","message":"Sample status 404"}"#),
        (500, #"{"error":"internal_server_error","message":"Sample status 500"}"#),
    ])
    func errorAndEmptyStatusesReplayAsRecorded(status: Int, body: String) async throws {
        let recorded = try await record([.get("/api/status/\(status)")])
        #expect(recorded.first?.statusCode == status)
        try await withInProcessReplayer(store: store) { replayer async throws in
            let replayed = try await replayer.get("/api/status/\(status)")
            #expect(replayed.statusCode == status)
            #expect(replayed.bodyText == body)
            #expect(replayed.cassetteSource == "hit")
        }
    }

    @Test func queryOrderAndJSONKeyOrderHitTheSameRecording() async throws {
        try await record([
            .get("/api/users?b=2&a=1"),
            .post("/api/nutrition/analyze", json: #"{"food":"apple","grams":100}"#),
        ])
        try await withInProcessReplayer(store: store) { replayer async throws in
            let users = try await replayer.get("/api/users?a=1&b=2")
            #expect(users.cassetteSource == "hit")
            #expect(users.statusCode == 200)
            let analyzed = try await replayer.send(.post, "/api/nutrition/analyze", json: #"{ "grams": 100, "food": "apple" }"#)
            #expect(analyzed.cassetteSource == "hit")
            #expect(try analyzed.jsonObject()["calories"] as? Int == 52)
            // A different value is a different request: the variants above matched on content.
            let other = try await replayer.send(.post, "/api/nutrition/analyze", json: #"{"food":"apple","grams":150}"#)
            #expect(other.cassetteSource == "miss")

            let stats = try await replayer.get("/__cassette/stats").jsonObject()
            let perKey = try #require(stats["perKeyHits"] as? [String: Int])
            #expect(perKey["GET /api/users?a=1&b=2"] == 1)
            #expect(perKey.count == 2)
        }
    }

    @Test func compressedResponsesAreStoredDecodedAndReplayedWithoutContentEncoding() async throws {
        let gzip: HTTPFields = [.acceptEncoding: "gzip"]
        let recorded = try await record([.get("/api/users", headers: gzip), .get("/api/nutrition/history", headers: gzip)])
        for response in recorded {
            #expect(response.headerFields[.contentEncoding] == nil)
            #expect(response.headerFields[.contentLength] == String(response.body.count))
            #expect(try JSONSerialization.jsonObject(with: response.body) is [Any])
        }

        let stored = try await StoreFiles.interactions(at: store)
        #expect(stored.count == 2)
        for interaction in stored {
            #expect(interaction.contentEncoding == "gzip", "the upstream compressed \(interaction.key)")
            #expect(interaction.responseHeaders[.contentEncoding] == nil)
            #expect(try JSONSerialization.jsonObject(with: interaction.responseBody) is [Any], "\(interaction.key) is stored decoded")
        }

        try await withInProcessReplayer(store: store) { replayer async throws in
            for (path, original) in zip(["/api/users", "/api/nutrition/history"], recorded) {
                let replayed = try await replayer.get(path, headers: gzip)
                #expect(replayed.cassetteSource == "hit")
                #expect(replayed.headerFields[.contentEncoding] == nil)
                #expect(replayed.headerFields[.contentLength] == String(replayed.body.count))
                #expect(replayed.body == original.body)
            }
        }
    }

    @Test func identicalRequestsReplayInRecordedOrderThenRepeatTheLast() async throws {
        let flaky = Request.get("/api/flaky?key=x&failures=1")
        let recorded = try await record([flaky, flaky])
        #expect(recorded.map(\.statusCode) == [503, 200])
        let sequences = try await StoreFiles.interactions(at: store).map(\.sequence)
        #expect(sequences == [0, 1])

        try await withInProcessReplayer(store: store) { replayer async throws in
            var statuses: [Int] = []
            var bodies: [Data] = []
            for _ in 0..<3 {
                let response = try await replayer.get(flaky.target)
                #expect(response.cassetteSource == "hit")
                statuses.append(response.statusCode)
                bodies.append(response.body)
            }
            #expect(statuses == [503, 200, 200])
            // The flaky endpoint echoes its secret `key` parameter, which the store keeps redacted.
            let stored = recorded.map { Redactor.default.scrub($0.body, secrets: SecretValues(["x"])) }
            #expect(stored[1] != recorded[1].body, "the echoed key must have been redacted")
            #expect(bodies == [stored[0], stored[1], stored[1]])
        }
    }
}
