import Foundation
import TestSupport
import Testing
import WellPlateCore

/// A Swift client on SwiftNIO (`NIOWebSocketTestClient`) replays a conversation through
/// `cassette replay`: recorded from the PyPI `websockets` upstream with the `websockets` client,
/// then played offline to the Swift client, which must receive the same messages in the same order
/// and the same close.
@Suite("WebSocket replay to a SwiftNIO client")
final class ProxyWebSocketSwiftClientTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("ws.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// The `websockets` client's lines as the Swift client's events.
    private func events(_ lines: [String]) throws -> [NIOWebSocketTestClient.Event] {
        try lines.map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            if let text = object["recv"] as? String { return .text(text) }
            if let code = object["closed"] as? Int { return .closed(code: code, reason: object["reason"] as? String ?? "") }
            return .dropped
        }
    }

    // A hang guard for the NIO client, not a measure: the time includes waiting for one of the
    // suite's two proxy slots, which a full run on a busy machine keeps taken for minutes.
    @Test(.timeLimit(.minutes(10)))
    func aSwiftNIOClientReceivesTheRecordedMessagesInOrderAndTheRecordedClose() async throws {
        let recorded = try await events(WebSocketPeers.recordChat(store: store))
        #expect(recorded.count == 8, "\(recorded)")
        #expect(recorded.last == .closed(code: 4000, reason: "server says bye"))
        // The upstream is stopped: the replay has only the store, with the recorded timing.
        try await withReplayer(store: store) { replayer in
            let replayed = try await NIOWebSocketTestClient.chat(port: replayer.port)
            #expect(replayed == recorded)
            // The proxy logged the conversation, and no miss.
            try await replayer.waitForLogLine(containing: "GET /chat 101 WebSocket replayed")
            #expect(try await replayer.stop() == .exited(0))
            #expect(!replayer.outputLines.contains { $0.contains("MISS") }, "\(replayer.outputLines)")
        }
    }
}
