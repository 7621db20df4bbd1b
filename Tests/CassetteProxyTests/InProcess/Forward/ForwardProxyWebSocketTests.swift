import CassetteForward
import CassetteProxy
import Foundation
import TestSupport
import Testing
import WellPlateCore

/// A `wss://` conversation through `cassette record --forward` and `replay --forward`: the PyPI
/// `websockets` client goes through the proxy with CONNECT (its HTTP proxy support), trusting the
/// proxy's local authority; the upstream is the `websockets` server over TLS for `localhost`, or
/// for the address 127.0.0.1.
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
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        try await recordAndReplay(
            host: "localhost", tls: (certificates.localhostCertificate, certificates.localhostKey), upstreamCA: certificates.caCertificate)
    }

    /// The host an IP address: the client's certificate from the local authority names the
    /// address, and the upstream's TLS goes without SNI, which cannot carry one.
    @Test func aWssConversationToAnAddressThroughConnectIsRecordedAndReplayedOffline() async throws {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        try await recordAndReplay(host: "127.0.0.1", tls: (certificates.serverCertificate, certificates.serverKey), upstreamCA: certificates.caCertificate)
    }

    /// Records the chat with `wss://HOST:PORT/chat` through `record --forward` (the upstream
    /// serving `tls`, trusted through `upstreamCA`), then replays it with the upstream stopped.
    private func recordAndReplay(host: String, tls: (certificate: String, key: String), upstreamCA: String) async throws {
        let made = try await workspace.run("ca", "init", "--dir", caDirectory)
        #expect(made.status == 0, "\(made)")
        var origin = ""
        let recordArguments = ["record", "--forward", "--port", "0", "--db", store, "--ca-dir", caDirectory, "--cacert", upstreamCA]
        let recorded = try await WebSocketPeers.recordInProcess(store: store, tls: tls, proxyArguments: { _ in recordArguments }) { proxy, base in
            origin = "https://\(host):\(base.port!)"
            return try await WebSocketPeers.client("wss://\(host):\(base.port!)/chat", proxy: proxy.url, cafile: cassetteCA)
        }
        #expect(recorded.count == 8, "\(recorded)")
        #expect(recorded.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(recorded)")
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        #expect(conversation.key == "GET \(origin)/chat")
        #expect(conversation.subprotocol == "chat.v1")

        // The upstream is stopped: the forward proxy replays the conversation to the same client.
        let replayed = try await withInProcessProxy(["replay", "--forward", "--port", "0", "--db", store, "--ca-dir", caDirectory]) { proxy in
            try await WebSocketPeers.client("wss://\(host):\(URL(string: origin)!.port!)/chat", proxy: proxy.url, cafile: cassetteCA)
        }
        #expect(replayed == recorded)
    }
}
