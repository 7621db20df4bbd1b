#if canImport(CCurl)
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// A replay-only proxy keeps the key of a request with a body per event loop, under its method,
/// target, Content-Type and body bytes (`ReplayTargetCache`). Repeated many times over fresh
/// connections (so every loop serves each body from its cache), each body must get the answer
/// keying it from scratch gives: its own recording, the recording an ignore rule makes it
/// equal to, or a miss; never another body's.
@Suite("Proxy: keys of repeated bodies")
final class ProxyBodyKeyCacheTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("bodies.db") }
    var config: String { workspace.path("cassette.json") }

    init() throws {
        workspace = try CLIWorkspace()
        try workspace.write(#"{"ignoredBodyFields": ["requestId"]}"#, to: "cassette.json")
    }

    static let json: HTTPFields = [.contentType: "application/json"]
    static let text: HTTPFields = [.contentType: "text/plain"]

    @Test func repeatedBodiesGetTheirOwnAnswersIgnoreRulesHoldAndOthersMiss() async throws {
        let first = Data(#"{"q": 1, "requestId": "a"}"#.utf8)
        let second = Data(#"{"q": 2, "requestId": "a"}"#.utf8)
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store, arguments: ["--config", config]) { recorder async throws in
                for (headers, body) in [(Self.json, first), (Self.json, second), (Self.text, first)] {
                    let response = try await recorder.send(.post, "/api/echo", headers: headers, body: body)
                    #expect(response.cassetteSource == "recorded", "\(response.bodyText)")
                }
                await recorder.stop()
            }
        }
        // (headers, body, the recorded body the answer echoes, or nil for a miss)
        let cases: [(HTTPFields, String, String?)] = [
            (Self.json, #"{"q": 1, "requestId": "a"}"#, #"{"q": 1, "requestId": "a"}"#),
            (Self.json, #"{"q": 2, "requestId": "a"}"#, #"{"q": 2, "requestId": "a"}"#),
            (Self.json, #"{"requestId": "b", "q": 1}"#, #"{"q": 1, "requestId": "a"}"#),
            (Self.json, #"{"q": 2, "requestId": "c"}"#, #"{"q": 2, "requestId": "a"}"#),
            // The same bytes under another Content-Type are keyed as text: their own recording.
            (Self.text, #"{"q": 1, "requestId": "a"}"#, #"{"q": 1, "requestId": "a"}"#),
            (Self.text, #"{"q": 1, "requestId": "b"}"#, nil),
            (Self.json, #"{"q": 3, "requestId": "a"}"#, nil),
            (Self.json, #"{"q": 1, "requestId": "a", "extra": true}"#, nil),
        ]
        try await withInProcessReplayer(store: store, arguments: ["--config", config]) { replayer async throws in
            for round in 1...4 {
                for (headers, body, echoed) in cases {
                    let response = try await replayer.send(.post, "/api/echo", headers: headers, body: Data(body.utf8))
                    guard let echoed else {
                        #expect(response.statusCode == 404 && response.cassetteSource == "miss", "round \(round), \(body): \(response.bodyText)")
                        continue
                    }
                    #expect(response.cassetteSource == "hit", "round \(round), \(body): \(response.bodyText)")
                    let answer = try JSONValue(parsing: Data(response.bodyText.utf8))
                    #expect(answer["body"]?.stringValue == echoed, "round \(round), \(headers[.contentType] ?? "") \(body): \(response.bodyText)")
                }
            }
            await replayer.stop()
        }
    }
}
#endif
