import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `--track-usage` counts what sessions replayed: a UI-test suite's recordings are served by
/// sessions, and `cassette list --unused-since` must not call them unused.
@Suite("Proxy sessions: usage")
final class ProxySessionUsageTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func replaysInSessionsAreSavedWithTrackUsageWhetherTheSessionEndedOrWasOpenAtShutdown() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/users", cassette: "LoginTests", body: Data("[]".utf8)),
            Recordings.make(.get, "/api/me", cassette: "ProfileTests", body: Data("{}".utf8)),
            Recordings.make(.get, "/api/never", cassette: "ProfileTests", body: Data("{}".utf8)),
        ])
        try await withInProcessReplayer(store: store, arguments: ["--track-usage", "--sessions-only"]) { proxy async throws in
            let login = try await proxy.openSession("LoginTests")
            #expect(try await login.get("/api/users").statusCode == 200)
            #expect(try await login.get("/api/users").statusCode == 200)
            #expect(try await login.end().statusCode == 200)
            // Still open when the proxy stops: closed with it, its replays counted all the same.
            let profile = try await proxy.openSession("ProfileTests")
            #expect(try await profile.getThroughMainPort("/api/me").statusCode == 200)
            await proxy.stop()
            #expect(proxy.summaryLine?.contains("usage saved for 2 recordings") == true, "\(proxy.outputLines)")
        }
        let listed = try await workspace.run("list", "--json")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed)")
        let counts = Dictionary(uniqueKeysWithValues: rows.compactMap { row in (row["key"] as? String).map { ($0, row["replayCount"] as? Int ?? 0) } })
        #expect(counts == ["GET /api/users": 2, "GET /api/me": 1, "GET /api/never": 0], "\(listed.stdout)")
    }
}
