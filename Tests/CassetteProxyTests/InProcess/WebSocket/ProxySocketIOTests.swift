import Foundation
import TestSupport
import Testing
import WellPlateCore

/// Socket.IO (Engine.IO v4 over the WebSocket transport) through `cassette record` and `cassette
/// replay`, between the real PyPI `python-socketio` server and client: acknowledgement ids are
/// the client's counter, so a client whose counter is elsewhere must still match and get its acks.
@Suite("Socket.IO through the proxy")
final class ProxySocketIOTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("sio.db") }

    init() throws {
        workspace = try CLIWorkspace()
        // python-engineio adds a timestamp (`t=`) to each connection's URL: left out of keys, as a user would.
        try Data(#"{"ignoredQueryParameters": ["t"]}"#.utf8).write(to: workspace.directory.appendingPathComponent("cassette.json"))
    }

    /// What the client prints before its ack ids: the sum 3, the news, the sum 12, the echo.
    static let answers = [
        #"{"ack": 3}"#, #"{"news": {"heard": "hello"}}"#, #"{"ack": 12}"#, #"{"ack": {"echo": {"x": 1}}}"#,
    ]

    @Test func acksReachAClientWhoseAckCounterStartsElsewhereWithTheRecordedData() async throws {
        let recorded = try await SocketIOPeers.withServer { base in
            try await withInProcessProxy(["record", "--upstream", base.absoluteString, "--port", "0", "--db", store] + workspace.configArguments) {
                recorder in
                let received = try await SocketIOPeers.client("http://127.0.0.1:\(recorder.port)")
                try await recorder.waitForLogLine(containing: "101 WebSocket recording")
                await recorder.stop()
                return received
            }
        }
        #expect(recorded == Self.answers + [#"{"ids": [1, 2, 1]}"#])
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        let texts = conversation.messages.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(texts.contains(#"421["add",1,2]"#) && texts.contains("431[3]") && texts.contains(#"43/chat,1[{"echo":{"x":1}}]"#), "\(texts)")
        // The server is stopped: a fresh client counting from 100 (/chat from 150) gets the same answers.
        try await withInProcessProxy(["replay", "--port", "0", "--db", store, "--strict", "--ws-timing", "fast"] + workspace.configArguments) {
            replayer in
            let replayed = try await SocketIOPeers.client("http://127.0.0.1:\(replayer.port)", ackStart: 100)
            #expect(replayed == Self.answers + [#"{"ids": [100, 101, 150]}"#])
            let again = try await SocketIOPeers.client("http://127.0.0.1:\(replayer.port)", ackStart: 7)
            #expect(again == Self.answers + [#"{"ids": [7, 8, 57]}"#])
            // No miss for --strict to exit 1 with.
            #expect(await replayer.stop().counters.missed == 0, "\(replayer.outputLines) \(replayer.standardError)")
        }
    }

    @Test func acknowledgementsAskedForInAnotherOrderAnswerEachEventWithItsLiveId() async throws {
        let answers = #"{"a": 3, "b": 12, "c": {"echo": {"x": 1}}}"#
        let recorded = try await SocketIOPeers.withServer { base in
            try await withInProcessProxy(["record", "--upstream", base.absoluteString, "--port", "0", "--db", store] + workspace.configArguments) {
                recorder in
                let received = try await SocketIOPeers.concurrentClient("http://127.0.0.1:\(recorder.port)", order: "abc")
                try await recorder.waitForLogLine(containing: "101 WebSocket recording")
                await recorder.stop()
                return received
            }
        }
        #expect(recorded == [answers, #"{"ids": [1, 2, 1]}"#])
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        #expect(ConversationOperations(conversation).operations.map(\.label) == ["event add", "event add", "event /chat echo"])
        try await withInProcessProxy(["replay", "--port", "0", "--db", store, "--strict"] + workspace.configArguments) { replayer in
            // The echo first, then add(2, 10), then add(1, 2): each ack goes to its own callback.
            let replayed = try await SocketIOPeers.concurrentClient("http://127.0.0.1:\(replayer.port)", order: "cba", ackStart: 100)
            #expect(replayed == [answers, #"{"ids": [150, 100, 101]}"#], "\(replayer.outputLines)")
            #expect(await replayer.stop().counters.missed == 0, "\(replayer.outputLines) \(replayer.standardError)")
        }
    }
}
