import Foundation
import TestSupport
import Testing
import WellPlateCore

/// `dump`, `audit` and `redact` of WebSocket conversations recorded through `cassette record`
/// between real peers on the PyPI `websockets` package, and a replay of the redacted
/// conversation with the upstream stopped.
@Suite("dump, audit and redact of recorded WebSocket conversations")
final class ConversationScanCommandTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("ws.db") }
    /// A GitHub token's shape (`ghp_` and 36 letters and digits), under a field no rule names:
    /// the recorder replaces it; in a store recorded before it did, `audit` finds it and `redact`
    /// removes it.
    static let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
    static let note = #"{"type": "note", "text": "deploy with \#(token) today"}"#

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Runs `record` against a live upstream while `client` talks through it; returns what the client received.
    private func record(_ client: (URL) async throws -> [String]) async throws -> [String] {
        try await WebSocketPeers.withUpstream { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let received = try await client(URL(string: "ws://127.0.0.1:\(recorder.port)/chat")!)
                try await recorder.waitForLogLine(containing: "101 WebSocket recording")
                await recorder.stop()
                return received
            }
        }
    }

    /// `Tests/Peers/websocket_send.py`: the hello, one answer per message sent, then the close.
    private func send(_ url: URL, _ messages: [String]) async throws -> [String] {
        let script = ExternalTool.packageRoot.appendingPathComponent("Tests/Peers/websocket_send.py").path
        let result = try await ExternalTool.run(["python3", script, url.absoluteString] + messages, cwd: workspace.directory)
        guard result.status == 0 else { throw ChildProcessError("the WebSocket client failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func dumpPrintsEachMessageWithItsDirectionKindSizeAndPreviewThenTheEnd() async throws {
        _ = try await record { try await WebSocketPeers.client($0.absoluteString) }
        let dump = try await workspace.run("dump", "--db", store)
        #expect(dump.status == 0, "\(dump)")
        #expect(dump.stdout.contains("  1 WebSocket conversation\n"), "\(dump.stdout)")
        #expect(dump.stdout.contains("=== dev GET /chat #0 WebSocket\nhandshake GET http://127.0.0.1:"), "\(dump.stdout)")
        #expect(dump.stdout.contains("subprotocol chat.v1\n"), "\(dump.stdout)")
        #expect(dump.stdout.contains(#"message 0 <- text 17 bytes: {"type": "hello"}"#), "\(dump.stdout)")
        #expect(dump.stdout.contains(#"message 1 -> text 37 bytes: {"type": "auth", "token": "REDACTED"}"#), "\(dump.stdout)")
        // The server's close; the client's answering close may come after the recorder ended it.
        #expect(dump.stdout.contains("<- close 17 bytes: 4000 server says bye"), "\(dump.stdout)")
        #expect(dump.stdout.contains("ended server closed 4000 \"server says bye\"\n"), "\(dump.stdout)")
        // Stable for git diff: no offsets, no random handshake key, unless asked for.
        #expect(!dump.stdout.contains(" ms"), "\(dump.stdout)")
        #expect(!dump.stdout.contains("Sec-WebSocket-Key"), "\(dump.stdout)")
        let timed = try await workspace.run("dump", "--timestamps", "--db", store)
        #expect(timed.stdout.contains("message 0 <- at "), "\(timed.stdout)")
        #expect(timed.stdout.contains("handshake header Sec-WebSocket-Key: "), "\(timed.stdout)")
    }

    /// The store's conversations as a recorder that did not replace token shapes wrote them:
    /// `REDACTED` in the note and its echo back to the token.
    private func reinstateToken() async throws {
        let opened = try await CassetteStore.open(path: store, access: .readWrite)
        var conversations = try await opened.conversations(cassette: nil)
        for index in conversations.indices {
            for message in conversations[index].messages.indices {
                let text = String(decoding: conversations[index].messages[message].payload, as: UTF8.self)
                conversations[index].messages[message].payload = Data(
                    text.replacingOccurrences(of: "deploy with REDACTED", with: "deploy with \(Self.token)").utf8)
            }
        }
        _ = try await opened.importConversations(conversations, replacing: true)
        try await opened.close()
    }

    @Test func aTokenTheRecorderReplacesOrAnOlderStoreKeptIsFoundByAuditRemovedByRedactAndTheLiveTokenStillReplays() async throws {
        let recorded = try await record { try await self.send($0, [Self.note]) }
        #expect(recorded.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(recorded)")
        #expect(try StoreFiles.files(at: store, containing: Self.token).isEmpty, "the recorder replaces token shapes")
        try await reinstateToken()
        #expect(!(try StoreFiles.files(at: store, containing: Self.token).isEmpty), "the older store keeps the token")

        let audit = try await workspace.run("audit", "--db", store)
        #expect(audit.status == 1, "\(audit)")
        #expect(audit.stdout.contains("HIGH  GitHub personal access token: ghp_******** (40 chars)"), "\(audit.stdout)")
        #expect(audit.stdout.contains("in dev GET /chat #0, WebSocket message 1 (client text) $.text"), "\(audit.stdout)")
        #expect(audit.stdout.contains("in dev GET /chat #0, WebSocket message 2 (server text) $.text"), "\(audit.stdout)")
        #expect(audit.stdout.contains("in 0 interactions and 1 WebSocket conversation of "), "\(audit.stdout)")
        #expect(!audit.stdout.contains(Self.token))

        let dryRun = try await workspace.run("redact", "--dry-run", "--db", store)
        #expect(dryRun.stdout.contains("dev GET /chat #0: WebSocket messages 1, 2\n"), "\(dryRun)")
        #expect(!(try StoreFiles.files(at: store, containing: Self.token).isEmpty))
        let redact = try await workspace.run("redact", "--db", store)
        #expect(redact.status == 0, "\(redact)")
        #expect(redact.stdout.contains("Redacted 0 of 0 interactions and 1 of 1 WebSocket conversation in "), "\(redact)")
        #expect(try StoreFiles.files(at: store, containing: Self.token).isEmpty)
        let clean = try await workspace.run("audit", "--db", store)
        #expect(clean.status == 0, "\(clean)")

        // The upstream is stopped: the live client still sends the real token, and it matches.
        let replayed = try await withInProcessReplayer(store: store, arguments: ["--ws-timing", "fast"]) { replayer in
            try await send(URL(string: "ws://127.0.0.1:\(replayer.port)/chat")!, [Self.note])
        }
        #expect(
            replayed == [
                #"{"recv": "{\"type\": \"hello\"}"}"#, #"{"recv": "{\"type\": \"note\", \"text\": \"deploy with REDACTED today\"}"}"#,
                #"{"closed": 4000, "reason": "server says bye"}"#,
            ], "\(replayed)")
    }
}
