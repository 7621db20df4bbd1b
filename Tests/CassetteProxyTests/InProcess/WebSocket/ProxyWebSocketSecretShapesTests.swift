import Foundation
import TestSupport
import Testing
import WellPlateCore

/// Tokens that `cassette audit` knows by their shape (a GitHub token, an AWS access key id), in
/// the free text of WebSocket messages and in a close frame's reason, between the real PyPI
/// `websockets` client and upstream: replaced before anything is stored, and a replay whose
/// client sends the real token still matches.
@Suite("Secret shapes in WebSocket messages")
final class ProxyWebSocketSecretShapesTests {
    let workspace: CLIWorkspace
    /// Built at run time, so no token-shaped literal sits in the source for scanners to flag.
    static let github = "ghp_" + String(repeating: "a1B2c3D4e5", count: 4).prefix(36)
    static let aws = "AKIA" + "IOSFODNN7EXAMPLE"

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func tokenShapesInMessagesAndCloseReasonsNeverReachTheStoreAndTheLiveTokenStillMatches() async throws {
        for (index, token) in [Self.github, Self.aws].enumerated() {
            let store = workspace.path("ws-\(index).db")
            let recorded = try await WebSocketPeers.recordChatInProcess(store: store, script: "shapes \(token)")
            #expect(recorded.contains(#"{"recv": "{\"type\": \"note\", \"text\": \"deploy with \#(token)\"}"}"#), "\(recorded)")
            #expect(recorded.last == #"{"closed": 4001, "reason": "revoked \#(token)"}"#, "\(recorded)")
            #expect(try StoreFiles.files(at: store, containing: token).isEmpty, "\(token)")
            let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
            let texts = conversation.messages.filter { $0.kind == .text }.map { String(decoding: $0.payload, as: UTF8.self) }
            // The client's note and the server's echo of it.
            #expect(texts.filter { $0 == #"{"type": "note", "text": "deploy with REDACTED"}"# }.count == 2, "\(texts)")
            let close = try #require(conversation.messages.first { $0.kind == .close && $0.direction == .client })
            #expect(ConversationReplay.closeFields(close.payload) == (4001, "revoked REDACTED"))
            #expect(conversation.end == .closed(by: .client, code: 4001, reason: "revoked REDACTED"))
            // The upstream is stopped; the client sends the real token again and is not a miss.
            try await withInProcessReplayer(store: store, arguments: ["--strict", "--ws-timing", "fast"]) { replayer in
                let replayed = try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat", script: "shapes \(token)")
                #expect(replayed.contains(#"{"recv": "{\"type\": \"note\", \"text\": \"deploy with REDACTED\"}"}"#), "\(replayed)")
                #expect(replayed.last == #"{"closed": 4001, "reason": "revoked \#(token)"}"#, "\(replayed)")
                // No miss for --strict to exit 1 with.
                #expect(await replayer.stop().counters.missed == 0, "\(replayer.outputLines)")
            }
        }
    }
}
