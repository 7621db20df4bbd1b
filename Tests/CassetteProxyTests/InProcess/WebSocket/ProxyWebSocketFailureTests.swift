import Foundation
import TestSupport
import Testing
import WellPlateCore

/// WebSocket conversations that go wrong, through `cassette record` and `cassette replay` (in this
/// process): frames RFC 6455 forbids, written byte by byte by a PyPI `wsproto` client, closed with
/// the RFC's code and never stored; an upstream (PyPI `websockets`) that drops the connection
/// mid-conversation. In each, what was answered is kept and the proxy goes on serving. (A recorder
/// stopped by SIGTERM with a conversation open: `ProxyShutdownTests`.)
@Suite("WebSocket conversations that fail")
final class ProxyWebSocketFailureTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("ws.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// The bad frames the wsproto client writes after the server's hello, and the close each gets.
    static let badFrames: [(script: String, code: Int, reason: String)] = [
        ("unmasked", 1002, "client frames must be masked"),
        ("reserved-opcode", 1002, "reserved opcode 0x3"),
        ("bad-utf8", 1007, "text message is not valid UTF-8"),
    ]

    private func conversations() async throws -> [Conversation] {
        try await WebSocketPeers.storedConversations(at: store)
    }

    @Test func badFramesWhileRecordingCloseWithTheRFCsCodeAndNoneIsRelayedOrStored() async throws {
        _ = try await WebSocketPeers.recordInProcess(store: store) { recorder, _ in
            for bad in Self.badFrames {
                let received = try await WebSocketPeers.wsprotoClient("ws://127.0.0.1:\(recorder.port)/chat", script: bad.script)
                #expect(received == [#"{"recv": "{\"type\": \"hello\"}"}"#, #"{"closed": \#(bad.code), "reason": "\#(bad.reason)"}"#])
            }
            try await recorder.waitForLogLine(containing: "(text message is not valid UTF-8); closed with 1007")
            // The proxy goes on serving: a whole conversation is recorded after them.
            let chat = try await WebSocketPeers.client("ws://127.0.0.1:\(recorder.port)/chat")
            #expect(chat.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(chat)")
            return chat
        }
        let stored = try await conversations()
        #expect(stored.count == 4)
        for (conversation, bad) in zip(stored.prefix(3), Self.badFrames) {
            // The hello only: the refused frame reached neither the upstream nor the store.
            #expect(conversation.messages.map(\.direction) == [.server], "\(conversation.messages)")
            #expect(conversation.end == .closed(by: .server, code: bad.code, reason: bad.reason))
        }
        #expect(stored.last?.end == .closed(by: .server, code: 4000, reason: "server says bye"))
    }

    @Test func badFramesOnReplayCloseWithTheRFCsCodeAndTheNextClientStillReplays() async throws {
        _ = try await WebSocketPeers.recordChatInProcess(store: store)
        try await withInProcessReplayer(store: store, arguments: ["--ws-timing", "fast"]) { replayer in
            for bad in Self.badFrames {
                let received = try await WebSocketPeers.wsprotoClient("ws://127.0.0.1:\(replayer.port)/chat", script: bad.script)
                #expect(received == [#"{"recv": "{\"type\": \"hello\"}"}"#, #"{"closed": \#(bad.code), "reason": "\#(bad.reason)"}"#])
            }
            try await replayer.waitForLogLine(containing: "WebSocket /chat: reserved opcode 0x3; closed with 1002")
            let again = try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat")
            #expect(again.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(again)")
        }
    }

    @Test func anUpstreamThatDropsMidConversationKeepsWhatWasAnsweredAndReplaysTheDrop() async throws {
        let recorded = try await WebSocketPeers.recordInProcess(store: store) { recorder, _ in
            let received = try await WebSocketPeers.wsprotoClient("ws://127.0.0.1:\(recorder.port)/drop", script: "echo")
            // The proxy goes on serving after the drop.
            let chat = try await WebSocketPeers.client("ws://127.0.0.1:\(recorder.port)/chat")
            #expect(chat.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(chat)")
            return received
        }
        #expect(recorded == [#"{"recv": "{\"type\": \"hello\"}"}"#, #"{"recv": "echo me"}"#, #"{"closed": null, "reason": null}"#])
        let dropped = try #require(try await conversations().first { $0.key == "GET /drop" })
        #expect(dropped.end == .dropped(by: .server))
        #expect(dropped.messages.map { "\($0.direction.rawValue) \($0.preview())" } == [#"server {"type": "hello"}"#, "client echo me", "server echo me"])
        // Offline, the client gets the same messages, then the same dropped connection.
        let replayed = try await withInProcessReplayer(store: store) { replayer in
            try await WebSocketPeers.wsprotoClient("ws://127.0.0.1:\(replayer.port)/drop", script: "echo")
        }
        #expect(replayed == recorded)
    }
}
