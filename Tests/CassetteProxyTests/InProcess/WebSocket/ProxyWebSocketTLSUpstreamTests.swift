import Foundation
import TestSupport
import Testing
import WellPlateCore

/// A `wss://` upstream given by its address (`--upstream https://127.0.0.1:PORT`): the PyPI
/// `websockets` server over TLS with certificates the test makes with openssl. SNI cannot carry
/// an address (RFC 6066 §3, and swift-nio-ssl refuses one), so the proxy sends none, and still
/// checks the certificate against the address it connected to (its IP entry), under `--cacert`.
@Suite("WebSocket conversations from a TLS upstream given by address")
final class ProxyWebSocketTLSUpstreamTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("wss.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// `record` in front of the upstream at `https://127.0.0.1:PORT`, trusting the test CA.
    private func recordArguments(_ upstream: URL, caCertificate: String) -> [String] {
        ["record", "--upstream", "https://127.0.0.1:\(upstream.port ?? 0)", "--port", "0", "--db", store, "--cacert", caCertificate]
    }

    @Test func aConversationFromAnUpstreamGivenByAddressIsRecordedWithCACertAndReplayedOffline() async throws {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        let recorded = try await WebSocketPeers.recordInProcess(
            store: store, tls: (certificates.serverCertificate, certificates.serverKey),
            proxyArguments: { self.recordArguments($0, caCertificate: certificates.caCertificate) }
        ) { proxy, _ in
            try await WebSocketPeers.client("ws://127.0.0.1:\(proxy.port)/chat")
        }
        #expect(recorded.count == 8, "\(recorded)")
        #expect(recorded.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(recorded)")
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        #expect(conversation.key == "GET /chat")
        #expect(conversation.subprotocol == "chat.v1")
        #expect(conversation.end == .closed(by: .server, code: 4000, reason: "server says bye"))

        // The upstream is stopped: the replay has only the store.
        let replayed = try await withInProcessReplayer(store: store) { replayer in
            try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat")
        }
        #expect(replayed == recorded)
    }

    @Test func aTrustedCertificateWithoutTheAddressAmongItsNamesIsRefused() async throws {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        try await WebSocketPeers.withUpstream(tls: (certificates.nameOnlyCertificate, certificates.nameOnlyKey)) { upstream in
            try await withInProcessProxy(recordArguments(upstream, caCertificate: certificates.caCertificate)) { proxy in
                let refused = await #expect(throws: ChildProcessError.self) {
                    try await WebSocketPeers.client("ws://127.0.0.1:\(proxy.port)/chat")
                }
                // The handshake is answered over HTTP, by libcurl, which refuses the name too.
                #expect(refused?.description.contains("HTTP 502") == true, "\(String(describing: refused))")
                try await proxy.waitForLogLine(containing: "GET /chat 502")
                // The log says why the WebSocket was not opened: the certificate does not name the address.
                let reason = proxy.outputLines.first { $0.contains("WebSocket /chat: the upstream WebSocket could not be opened") }
                #expect(
                    reason?.contains("the certificate of the upstream https://127.0.0.1:\(upstream.port ?? 0) is not for its host") == true,
                    "\(proxy.outputLines)")
                #expect(reason?.contains("--insecure") == true, "\(proxy.outputLines)")
            }
        }
        #expect(try await WebSocketPeers.storedConversations(at: store).isEmpty)
    }

    @Test func withoutCACertTheUpstreamsCertificateIsRefusedAndTheLogNamesTheFlag() async throws {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        try await WebSocketPeers.withUpstream(tls: (certificates.serverCertificate, certificates.serverKey)) { upstream in
            let arguments = ["record", "--upstream", "https://127.0.0.1:\(upstream.port ?? 0)", "--port", "0", "--db", store]
            try await withInProcessProxy(arguments) { proxy in
                await #expect(throws: ChildProcessError.self) {
                    try await WebSocketPeers.client("ws://127.0.0.1:\(proxy.port)/chat")
                }
                try await proxy.waitForLogLine(containing: "GET /chat 502")
                let reason = proxy.outputLines.first { $0.contains("WebSocket /chat: the upstream WebSocket could not be opened") }
                #expect(
                    reason?.contains("the TLS handshake with the upstream https://127.0.0.1:\(upstream.port ?? 0) failed (CERTIFICATE_VERIFY_FAILED)") == true,
                    "\(proxy.outputLines)")
                #expect(reason?.contains("trust its CA with --cacert FILE") == true, "\(proxy.outputLines)")
            }
        }
        #expect(try await WebSocketPeers.storedConversations(at: store).isEmpty)
    }
}
