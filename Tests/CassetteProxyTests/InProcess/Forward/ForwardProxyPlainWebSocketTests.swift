import CassetteProxy
import Foundation
import TestSupport
import Testing
import WellPlateCore

/// A `ws://` (no TLS) conversation through `cassette record --forward` and `replay --forward`:
/// the PyPI `websockets` client opens it with a CONNECT to the upstream's plain-HTTP port (its
/// HTTP proxy support), and the proxy tells plain HTTP from TLS by the tunnel's first byte; or
/// the PyPI `wsproto` client sends the handshake to the forward listener in absolute form.
@Suite("ws:// through the forward proxy")
final class ForwardProxyPlainWebSocketTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("ws.db") }
    var caDirectory: String { workspace.path("ca") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Records the chat through `cassette record --forward` with `client` (given the upstream's
    /// `ws://` URL and the proxy); checks what it received and that it is keyed with its origin.
    /// Returns the upstream's origin and what the client received.
    private func recordThroughForward(_ client: (_ url: String, _ proxy: URL) async throws -> [String]) async throws -> (origin: String, received: [String]) {
        let made = try await workspace.run("ca", "init", "--dir", caDirectory)
        #expect(made.status == 0, "\(made)")
        var origin = ""
        let recorded = try await WebSocketPeers.withUpstream { base in
            origin = base.absoluteString
            return try await withInProcessProxy(["record", "--forward", "--port", "0", "--db", store, "--ca-dir", caDirectory]) { proxy in
                let received = try await client("ws://127.0.0.1:\(base.port!)/chat", proxy.url)
                try await proxy.waitForLogLine(containing: "GET \(origin)/chat 101 WebSocket recording")
                await proxy.stop()
                return received
            }
        }
        #expect(recorded.count == 8, "\(recorded)")
        #expect(recorded.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(recorded)")
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let conversation = try #require(try await opened.conversations(cassette: nil).first)
        try await opened.close()
        #expect(conversation.key == "GET \(origin)/chat")
        return (origin, recorded)
    }

    @Test func aPlainWsConversationThroughConnectIsRecordedKeyedWithItsHttpOriginAndReplayedOffline() async throws {
        let (origin, recorded) = try await recordThroughForward { url, proxy in try await WebSocketPeers.client(url, proxy: proxy) }

        // The upstream is stopped: the forward proxy replays the conversation to the same client.
        let replayed = try await withInProcessProxy(["replay", "--forward", "--port", "0", "--db", store, "--ca-dir", caDirectory]) { proxy in
            try await WebSocketPeers.client("ws://127.0.0.1:\(URL(string: origin)!.port!)/chat", proxy: proxy.url)
        }
        #expect(replayed == recorded)

        // A session of the same proxy, reached through its main port's tunnel with the header on
        // the handshake: the session serves the conversation and its journal has it.
        try await withInProcessProxy(["replay", "--forward", "--ws-timing", "fast", "--port", "0", "--db", store, "--ca-dir", caDirectory]) { proxy in
            let session = try await proxy.openSession("dev")
            let url = "ws://127.0.0.1:\(URL(string: origin)!.port!)/chat"
            let headed = try await WebSocketPeers.client(url, proxy: proxy.url, header: "X-Cassette-Session: \(session.id)")
            #expect(headed == recorded)
            let entries = try await session.requests()
            #expect(entries.map { $0["key"] as? String } == ["GET \(origin)/chat"], "\(entries)")
            #expect(entries.first?["status"] as? Int == 101)
            let journaled = try #require(entries.first?["webSocket"] as? [String: Any], "\(entries)")
            #expect(journaled["matched"] as? Int == 4)
            #expect(journaled["end"] as? String == #"server closed 4000 "server says bye""#)
        }
    }

    @Test func anAbsoluteFormHandshakeWithoutConnectIsRecordedAndReplayedLikeOneThroughConnect() async throws {
        // The wsproto client sends `GET http://127.0.0.1:PORT/chat` to the forward listener itself;
        // it is keyed as a conversation through CONNECT is.
        let (origin, recorded) = try await recordThroughForward { url, proxy in try await WebSocketPeers.wsprotoClient(url, proxy: proxy) }

        // The upstream is stopped: the same absolute-form client, and the websockets client through
        // CONNECT, get the recorded conversation.
        let url = "ws://127.0.0.1:\(URL(string: origin)!.port!)/chat"
        let (absolute, connect, declined) = try await withInProcessProxy(["replay", "--forward", "--port", "0", "--db", store, "--ca-dir", caDirectory]) {
            proxy in
            (
                try await WebSocketPeers.wsprotoClient(url, proxy: proxy.url), try await WebSocketPeers.client(url, proxy: proxy.url),
                // Nothing recorded at this path: a miss of its host, answered over HTTP as through CONNECT.
                try await WebSocketPeers.wsprotoClient(url.replacingOccurrences(of: "/chat", with: "/other"), proxy: proxy.url)
            )
        }
        #expect(absolute == recorded)
        #expect(connect == recorded)
        #expect(declined == [#"{"closed": null, "reason": "rejected with 404"}"#], "\(declined)")
    }
}
