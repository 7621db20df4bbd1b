import Foundation
import TestSupport
import Testing
import WellPlateCore

/// A WebSocket conversation of a session reached through the main port (`X-Cassette-Session` on
/// the handshake), and in the session's journal: the PyPI `websockets` client against
/// `cassette replay`, the conversation recorded from the `websockets` upstream first.
@Suite("WebSocket conversations in sessions")
final class ProxyWebSocketSessionTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("ws.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func theMainPortServesASessionsConversationAndItsJournalShowsMessagesMissesAndEnds() async throws {
        let recorded = try await WebSocketPeers.recordChatInProcess(store: store)
        try await withInProcessReplayer(store: store, arguments: ["--ws-timing", "fast"]) { proxy in
            let session = try await proxy.openSession("dev")
            let url = "ws://127.0.0.1:\(proxy.port)/chat"
            let replayed = try await WebSocketPeers.client(url, header: "X-Cassette-Session: \(session.id)")
            #expect(replayed == recorded)
            let changed = try await WebSocketPeers.client(url, script: "changed", header: "X-Cassette-Session: \(session.id)")
            #expect(changed.last?.hasPrefix(#"{"closed": 1008"#) == true, "\(changed)")
            // A session that is not live: the handshake is an HTTP request, and gets its 404.
            let unknown = try await proxy.get("/chat", headers: [.init("X-Cassette-Session")!: "nosuchsession"])
            #expect(unknown.statusCode == 404)

            let entries = try await session.requests()
            #expect(entries.count == 2, "\(entries)")
            let first = try #require(entries.first?["webSocket"] as? [String: Any], "\(entries)")
            #expect(entries.first?["status"] as? Int == 101)
            #expect(entries.first?["source"] as? String == "hit")
            #expect(entries.first?["key"] as? String == "GET /chat")
            #expect(first["sent"] as? Int == 4)
            #expect(first["received"] as? Int == 7)
            #expect(first["matched"] as? Int == 4)
            #expect(first["missed"] is NSNull)
            #expect(first["end"] as? String == #"server closed 4000 "server says bye""#)
            let second = try #require(entries.last?["webSocket"] as? [String: Any])
            #expect(entries.last?["source"] as? String == "miss")
            #expect(second["matched"] as? Int == 1)
            let missed = try #require(second["missed"] as? [String: Any])
            #expect(missed["expected"] as? String == #"text {"id": 7, "method": "add", "params": [1, 2]}"#)
            #expect(missed["received"] as? String == #"text {"id": 7, "method": "add", "params": [1, 3]}"#)
            #expect((second["end"] as? String)?.hasPrefix("server closed 1008 ") == true, "\(second)")

            // The summary and ?strict=true count the conversation's miss.
            let ended = try await session.end(strict: true)
            #expect(ended.statusCode == 409, "\(ended.bodyText)")
            let summary = try ended.jsonObject()
            #expect(summary["served"] as? Int == 2)
            let misses = summary["missed"] as? [[String: Any]] ?? []
            #expect(misses.map { $0["key"] as? String } == ["GET /chat"])
            #expect((misses.first?["message"] as? String)?.contains("expected text {\"id\": 7") == true, "\(misses)")
        }
    }

    @Test func aSessionRecordsAConversationThroughTheMainPortAndJournalsItAsRecorded() async throws {
        try await WebSocketPeers.withUpstream { base in
            try await withInProcessRecorder(upstream: base, store: store) { proxy in
                let session = try await proxy.openSession("ws-session")
                let received = try await WebSocketPeers.client(
                    "ws://127.0.0.1:\(proxy.port)/chat", header: "X-Cassette-Session: \(session.id)")
                #expect(received.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(received)")
                let entry = try #require(try await session.requests().first)
                #expect(entry["source"] as? String == "recorded")
                let conversation = try #require(entry["webSocket"] as? [String: Any])
                #expect(conversation["sent"] as? Int == 4)
                #expect(conversation["received"] as? Int == 7)
                #expect(conversation["end"] as? String == #"server closed 4000 "server says bye""#)
                #expect(try await session.end().statusCode == 200)
                await proxy.stop()
            }
        }
        // Recorded into the session's cassette, not the proxy's.
        let stored = try await WebSocketPeers.storedConversations(at: store)
        #expect(stored.map(\.cassette) == ["ws-session"])
    }
}
