import CassetteProxy
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `replay --strict`: the exit status scripts read once the proxy is stopped with SIGTERM, 1 after
/// a miss or a refusal as stale (with one line on stderr saying how many), else 0. What counts as
/// a miss is tested in-process (`ProxyMissTests`, `StaleRecordingTests`).
@Suite("Proxy --strict exit status")
final class ProxyStrictTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }

    init() throws {
        workspace = try CLIWorkspace()
    }

    func recordFixtures() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/users?limit=10", body: Recordings.json(#"{"users":[]}"#)),
            Recordings.make(.get, "/old", body: Recordings.json(#"{"age":"old"}"#)),
            Recordings.make(.head, "/old", body: Data()),
        ])
    }

    @Test func strictExitsNonZeroAfterAMiss() async throws {
        try await recordFixtures()
        try await withReplayer(store: store, arguments: ["--strict"]) { replayer async throws in
            #expect(try await replayer.get("/api/users?limit=10").cassetteSource == "hit")
            #expect(try await replayer.get("/api/nothing").cassetteSource == "miss")
            #expect(try await replayer.stop() == .exited(1))
            #expect(replayer.process.standardError.contains("--strict: 1 request(s) had no recording"))
        }
    }

    @Test func strictExitsZeroWithoutMisses() async throws {
        try await recordFixtures()
        try await withReplayer(store: store, arguments: ["--strict"]) { replayer async throws in
            #expect(try await replayer.get("/api/users?limit=10").cassetteSource == "hit")
            #expect(try await replayer.stop() == .exited(0))
            #expect(replayer.process.standardError.isEmpty)
        }
    }

    /// `/old` was recorded on 2025-06-15, well over 90 days ago.
    @Test func staleFailRefusalsAreMissesThatStrictExitsNonZeroFor() async throws {
        try await recordFixtures()
        try await withReplayer(store: store, arguments: ["--max-age", "90", "--stale", "fail", "--strict"]) { replayer async throws in
            #expect(try await replayer.get("/old").statusCode == 404)
            // HEAD takes another path through the proxy; it is refused all the same.
            #expect(try await replayer.send(.head, "/old").statusCode == 404)
            #expect(try await replayer.stop() == .exited(1))
            #expect(replayer.summaryLine?.contains("refused as stale 2") == true, "\(replayer.summaryLine ?? "")")
            #expect(replayer.process.standardError.contains("--strict: 2 request(s) had no recording"))
        }
    }
}
