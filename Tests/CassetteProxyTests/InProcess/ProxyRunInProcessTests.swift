import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette run`'s proxy started in this process, without its command: what `run` serves is
/// built from its flags as `record`'s and `replay`'s is, so it needs no process to be tested.
@Suite("cassette run's proxy in process")
final class ProxyRunInProcessTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func runsProxyListensOnAFreePortAndAnswersWithItsReplayFlags() async throws {
        try await workspace.record([Recordings.make(.get, "/api/health")])
        try await withInProcessProxy(["run", "--db", workspace.storePath, "--miss-status", "418", "--", "swift", "test"]) { proxy async throws in
            // Without --port, `run` takes a free port rather than cassette.json's or 8080.
            #expect(proxy.port != 8080 && proxy.port != 0)
            let hit = try await proxy.get("/api/health")
            #expect(hit.statusCode == 200)
            #expect(hit.cassetteSource == "hit")
            let miss = try await proxy.get("/api/nowhere")
            #expect(miss.statusCode == 418)
            #expect(miss.cassetteSource == "miss")
            let health = try await proxy.get("/__cassette/health").jsonObject()
            #expect(health["mode"] as? String == "replay")
            await proxy.stop()
            #expect(proxy.summaryLine == "recorded 0, replayed 1, missed 1, unused recordings 0")
        }
    }
}
