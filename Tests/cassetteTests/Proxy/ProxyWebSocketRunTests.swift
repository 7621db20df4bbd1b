import Foundation
import TestSupport
import Testing
import WellPlateCore

/// A WebSocket conversation through `cassette run`, with its child (the PyPI `websockets` client)
/// as the client: recorded from the `websockets` upstream, then replayed to the child offline.
/// Over the binary until `run` can be started in the test process.
@Suite("WebSocket conversations through cassette run")
final class ProxyWebSocketRunTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("ws.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func cassetteRunRecordsItsChildsConversationAndReplaysItToTheChildOffline() async throws {
        let client = ExternalTool.packageRoot.appendingPathComponent("Tests/Peers/websocket_client.py").path
        // The child reads the proxy's address from CASSETTE_URL, as an app's test runner would.
        let child = ["/bin/sh", "-c", #"exec python3 "$0" "ws${CASSETTE_URL#http}/chat""#, client]
        let recorded = try await WebSocketPeers.withUpstream { base in
            try await runCassette(["run", "--mode", "missing", "--upstream", base.absoluteString, "--db", store, "--"] + child, cwd: workspace.directory)
        }
        #expect(recorded.status == 0, "\(recorded)")
        #expect(recorded.stderr.contains("GET /chat 101 WebSocket recording"), "\(recorded)")
        let lines = recorded.stdout.split(separator: "\n").map(String.init)
        #expect(lines.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(recorded)")
        let replayed = try await runCassette(["run", "--strict", "--db", store, "--"] + child, cwd: workspace.directory)
        #expect(replayed.status == 0, "\(replayed)")
        #expect(replayed.stderr.contains("GET /chat 101 WebSocket replayed"), "\(replayed)")
        #expect(replayed.stdout.split(separator: "\n").map(String.init) == lines)
    }
}
