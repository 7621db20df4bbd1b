import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// HTTP/1.1 on the wire: keep-alive, pipelining, malformed requests and oversized bodies, with
/// raw sockets so every byte is under the test's control.
@Suite("Proxy HTTP/1.1 handling")
final class ProxyProtocolTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }

    init() throws {
        workspace = try CLIWorkspace()
    }

    func recordFixtures() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/first", body: Recordings.json(#"{"n":1}"#)),
            Recordings.make(.get, "/api/second", body: Recordings.json(#"{"n":2}"#)),
            Recordings.make(.get, "/api/third", body: Recordings.json(#"{"n":3}"#)),
            Recordings.make(
                .post, "/api/small",
                requestHeaders: [.contentType: "application/json"], requestBody: Recordings.json(#"{"a":1}"#),
                body: Recordings.json(#"{"posted":true}"#)
            ),
        ])
    }

    @Test func garbageGets400AndOtherConnectionsKeepWorking() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { replayer async throws in
            let keptOpen = try await replayer.connect()
            try await keptOpen.send(RawConnection.get("/api/first"))
            #expect(try await keptOpen.receiveResponses(1).first?.status == 200)

            let broken = try await replayer.connect()
            try await broken.send([0x00, 0xFF, 0x13] + Array("NOT HTTP AT ALL\r\n\r\n".utf8))
            let answer = RawHTTPResponse.parseAll(try await broken.receiveUntilClosed())
            #expect(answer.count == 1)
            #expect(answer.first?.status == 400)
            #expect(answer.first?.header("Connection")?.lowercased() == "close")
            let explanation = try JSONSerialization.jsonObject(with: Data(answer.first?.body ?? [])) as? [String: Any]
            #expect(explanation?["error"] as? String == "bad_request")
            #expect((explanation?["message"] as? String)?.contains("not valid HTTP/1.1") == true, "\(answer.first?.bodyText ?? "")")

            try await keptOpen.send(RawConnection.get("/api/second"))
            let again = try await keptOpen.receiveResponses(1)
            #expect(again.first?.status == 200)
            #expect(again.first?.bodyText == #"{"n":2}"#)

            let fresh = try await replayer.connect()
            try await fresh.send(RawConnection.get("/api/third"))
            #expect(try await fresh.receiveResponses(1).first?.bodyText == #"{"n":3}"#)
        }
    }

    @Test func aBodyOverTheLimitGets413WithAnExplanation() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store, arguments: ["--max-body-size", "100"]) { replayer async throws in
            let declared = try await replayer.connect()
            try await declared.send(RawConnection.post("/api/small", json: "[" + String(repeating: "1,", count: 100) + "1]"))
            let tooLarge = try #require(RawHTTPResponse.parseAll(try await declared.receiveUntilClosed()).first)
            #expect(tooLarge.status == 413)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(tooLarge.body)) as? [String: Any])
            #expect(body["error"] as? String == "payload_too_large")
            let message = try #require(body["message"] as? String)
            #expect(message.contains("100 bytes") && message.contains("--max-body-size"), "\(message)")

            // Without a Content-Length the limit applies as the chunks arrive.
            let chunked = try await replayer.connect()
            let chunk = String(repeating: "x", count: 80)
            try await chunked.send(
                "POST /api/small HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n50\r\n\(chunk)\r\n50\r\n\(chunk)\r\n0\r\n\r\n")
            #expect(RawHTTPResponse.parseAll(try await chunked.receiveUntilClosed()).first?.status == 413)

            let small = try await replayer.send(.post, "/api/small", json: #"{"a":1}"#)
            #expect(small.statusCode == 200)
            #expect(small.cassetteSource == "hit")
        }
    }

    @Test func severalRequestsShareOneKeepAliveConnection() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { replayer async throws in
            let connection = try await replayer.connect()
            for (target, body) in [("/api/first", #"{"n":1}"#), ("/api/second", #"{"n":2}"#), ("/api/first", #"{"n":1}"#), ("/api/third", #"{"n":3}"#)] {
                try await connection.send(RawConnection.get(target))
                let response = try #require(try await connection.receiveResponses(1).first)
                #expect(response.status == 200)
                #expect(response.bodyText == body)
                #expect(response.header("Connection")?.lowercased() != "close")
            }
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { replayer async throws in
            let connection = try await replayer.connect()
            try await connection.send(RawConnection.get("/api/second") + RawConnection.get("/api/first") + RawConnection.post("/api/small", json: #"{"a":1}"#))
            let responses = try await connection.receiveResponses(3)
            #expect(responses.map(\.bodyText) == [#"{"n":2}"#, #"{"n":1}"#, #"{"posted":true}"#])
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrderWhileRecording() async throws {
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: workspace.path("r.db")) { recorder async throws in
                let connection = try await recorder.connect()
                // The answers keep the order of the requests, although the first one is slow.
                try await connection.send(RawConnection.get("/api/slow?ms=300") + RawConnection.get("/api/health"))
                let responses = try await connection.receiveResponses(2)
                #expect(responses.map(\.status) == [200, 200])
                #expect(responses.first?.bodyText == #"{"delayedMs":300}"#)
                #expect(responses.last?.bodyText.contains(#""status":"ok""#) == true)
            }
        }
    }

    @Test func aReplayedHeadAnswerHasTheRecordedLengthAndNoBody() async throws {
        try await workspace.record([
            Recordings.make(.head, "/api/first", responseHeaders: [.contentType: "application/json", .contentLength: "7"], body: Data()),
            Recordings.make(.get, "/api/second", body: Recordings.json(#"{"n":2}"#)),
        ])
        try await withInProcessReplayer(store: store) { replayer async throws in
            let connection = try await replayer.connect()
            try await connection.send("HEAD /api/first HTTP/1.1\r\nHost: localhost\r\n\r\n" + RawConnection.get("/api/second"))
            let bytes = try await connection.receive { $0.text.hasSuffix(#"{"n":2}"#) }
            let text = bytes.text
            let heads = text.components(separatedBy: "\r\n\r\n")
            #expect(heads.count == 3, "\(text)")
            #expect(heads[0].hasPrefix("HTTP/1.1 200"), "\(text)")
            #expect(heads[0].lowercased().contains("content-length: 7"), "the GET's length, as recorded: \(text)")
            // The second answer starts right after the first head: the HEAD answer wrote no body.
            #expect(heads[1].hasPrefix("HTTP/1.1 200"), "\(text)")
            #expect(heads[2] == #"{"n":2}"#)
        }
    }
}
