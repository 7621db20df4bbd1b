import Foundation
import TestSupport
import Testing
import WellPlateCore

/// WebSocket conversations in what the proxy says when it stops (recorded, replayed, missed,
/// unused) and in `--track-usage`, between the real PyPI `websockets` client and upstream,
/// through `cassette record` and `cassette replay` (in this process, stopped as SIGTERM stops them).
@Suite("WebSocket conversations in the proxy's summary and usage")
final class ProxyWebSocketSummaryTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("ws.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Records `/chat` and `/other` (the `ids` script); what the recorder printed.
    private func recordTwo() async throws -> [String] {
        try await WebSocketPeers.withUpstream { base in
            try await withInProcessProxy(["record", "--upstream", base.absoluteString, "--port", "0", "--db", store]) { recorder in
                _ = try await WebSocketPeers.client("ws://127.0.0.1:\(recorder.port)/chat")
                _ = try await WebSocketPeers.client("ws://127.0.0.1:\(recorder.port)/other", script: "ids 0")
                try await recorder.waitForLogLine(containing: "GET /other 101 WebSocket recording")
                await recorder.stop()
                return recorder.outputLines
            }
        }
    }

    /// Replays `/chat` twice, the second time with a changed message; what the replayer printed.
    private func replayChat(_ arguments: [String]) async throws -> [String] {
        try await withInProcessReplayer(store: store, arguments: arguments + ["--ws-timing", "fast"]) { replayer in
            _ = try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat")
            _ = try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat", script: "changed")
            try await replayer.waitForLogLine(containing: "MISS WebSocket /chat")
            await replayer.stop()
            return replayer.outputLines
        }
    }

    @Test func theShutdownSummaryCountsConversationsRecordedReplayedMissedAndUnused() async throws {
        let recorded = try await recordTwo()
        #expect(
            recorded.contains("recorded 0, replayed 0, missed 0, WebSocket conversations recorded 2, replayed 0, missed 0, unused recordings 0"),
            "\(recorded)")
        let replayed = try await replayChat([])
        #expect(
            replayed.contains(
                "recorded 0, replayed 0, missed 0, WebSocket conversations recorded 0, replayed 2, missed 1, unused recordings 0, unused conversations 1"),
            "\(replayed)")
        #expect(replayed.contains("  unused: WebSocket GET /other"), "\(replayed)")
    }

    @Test func trackUsageMarksReplayedConversationsUsedAndListUnusedSinceShowsTheOthers() async throws {
        _ = try await recordTwo()
        // Without --track-usage nothing is written: both are unused.
        _ = try await replayChat([])
        let before = try await runCassette(["list", "--db", store, "--unused-since", "2026-01-01"], cwd: workspace.directory)
        #expect(before.stdout.contains("2 WebSocket conversations of 2 match --unused-since 2026-01-01."), "\(before)")
        let replayed = try await replayChat(["--track-usage"])
        #expect(replayed.contains { $0.contains("usage saved for 0 recordings and 1 WebSocket conversation") }, "\(replayed)")
        let after = try await runCassette(["list", "--db", store, "--unused-since", "2026-01-01"], cwd: workspace.directory)
        #expect(after.status == 0, "\(after)")
        #expect(after.stdout.contains("1 WebSocket conversation of 2 matches --unused-since 2026-01-01."), "\(after)")
        #expect(after.stdout.contains("GET /other") && !after.stdout.contains("GET /chat"), "\(after)")
        let stored = try await CassetteStore.open(path: store, access: .readOnly)
        let usage = try await stored.conversationUsage(cassette: "dev")
        try await stored.close()
        // Both connections to /chat took its one conversation; the missed one was replayed too.
        #expect(usage.values.map(\.replayCount) == [2])
    }
}
