import Foundation
import TestSupport
import Testing
import WellPlateCore

/// WebSocket conversations that go wrong, through `cassette record` and `cassette replay` (child
/// processes, so SIGTERM is a real signal): frames RFC 6455 forbids, written byte by byte by a
/// PyPI `wsproto` client, closed with the RFC's code and never stored; an upstream (PyPI
/// `websockets`) that drops the connection mid-conversation; a recorder stopped with a
/// conversation open. In each, what was answered is kept and the proxy goes on serving.
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
        _ = try await WebSocketPeers.recordConversation(store: store) { recorder, _ in
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
        _ = try await WebSocketPeers.recordChat(store: store)
        try await withReplayer(store: store, arguments: ["--ws-timing", "fast"]) { replayer in
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
        let recorded = try await WebSocketPeers.recordConversation(store: store) { recorder, _ in
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
        let replayed = try await withReplayer(store: store) { replayer in
            try await WebSocketPeers.wsprotoClient("ws://127.0.0.1:\(replayer.port)/drop", script: "echo")
        }
        #expect(replayed == recorded)
    }

    @Test func sigtermWithAConversationOpenExitsZeroAndKeepsWhatWasAnsweredMarkedCut() async throws {
        let ready = workspace.path("client-ready")
        let received = try await WebSocketPeers.withUpstream { base in
            try await withRecorder(upstream: base, store: store) { recorder in
                async let client = WebSocketPeers.wsprotoClient("ws://127.0.0.1:\(recorder.port)/chat", script: "hold", argument: ready)
                let deadline = ContinuousClock.now + Patience.process
                while !FileManager.default.fileExists(atPath: ready) && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(try await recorder.stop() == .exited(0))
                return try await client
            }
        }
        // The client was told the proxy is going away.
        #expect(received.last == #"{"closed": 1001, "reason": "cassette is stopping"}"#, "\(received)")
        let conversation = try #require(try await conversations().first)
        #expect(conversation.end == .cut)
        // Every message the client received is in the store, in order.
        let answered = received.dropLast().map { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
            return object?["recv"] ?? line
        }
        let stored = conversation.messages.filter { $0.direction == .server && $0.kind == .text }.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(stored == answered)
        #expect(conversation.messages.contains { $0.direction == .client && $0.payload == Data("echo me".utf8) })
    }
}
