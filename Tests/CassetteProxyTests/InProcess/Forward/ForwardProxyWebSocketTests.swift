import CassetteForward
import CassetteProxy
import Foundation
import TestSupport
import Testing
import WellPlateCore

/// A `wss://` conversation through `cassette record --forward` and `replay --forward`: the PyPI
/// `websockets` client goes through the proxy with CONNECT (its HTTP proxy support), trusting the
/// proxy's local authority; the upstream is the `websockets` server over TLS for `localhost`.
@Suite("WebSocket through the forward proxy")
final class ForwardProxyWebSocketTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("ws.db") }
    var caDirectory: String { workspace.path("ca") }
    var cassetteCA: String { CertificateAuthority.certificatePath(in: caDirectory) }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func aWssConversationThroughConnectIsRecordedKeyedWithItsOriginAndReplayedOffline() async throws {
        let made = try await workspace.run("ca", "init", "--dir", caDirectory)
        #expect(made.status == 0, "\(made)")
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        var origin = ""
        let recordArguments = ["record", "--forward", "--port", "0", "--db", store, "--ca-dir", caDirectory, "--cacert", certificates.caCertificate]
        let recorded = try await WebSocketPeers.recordInProcess(
            store: store, tls: (certificates.localhostCertificate, certificates.localhostKey), proxyArguments: { _ in recordArguments }
        ) { proxy, base in
            origin = base.absoluteString
            return try await WebSocketPeers.client("wss://localhost:\(base.port!)/chat", proxy: proxy.url, cafile: cassetteCA)
        }
        #expect(recorded.count == 8, "\(recorded)")
        #expect(recorded.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(recorded)")
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        #expect(conversation.key == "GET \(origin)/chat")
        #expect(conversation.subprotocol == "chat.v1")

        // The upstream is stopped: the forward proxy replays the conversation to the same client.
        let replayed = try await withInProcessProxy(["replay", "--forward", "--port", "0", "--db", store, "--ca-dir", caDirectory]) { proxy in
            let port = URL(string: origin)!.port!
            return try await WebSocketPeers.client("wss://localhost:\(port)/chat", proxy: proxy.url, cafile: cassetteCA)
        }
        #expect(replayed == recorded)
    }
}
