import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Old recordings made visible: `--max-age` warnings and refusals on replay, `list` ages and
/// selections, and usage remembered only with `--track-usage`.
@Suite("Stale recordings", .serialized)
final class StaleRecordingTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// `/old` recorded on 2025-06-15 (well over 90 days ago), `/new` an hour ago.
    func recordOldAndNew() async throws {
        try await workspace.record([
            Recordings.make(.get, "/old", body: Recordings.json(#"{"age":"old"}"#)),
            Recordings.make(.get, "/new", body: Recordings.json(#"{"age":"new"}"#), recordedAt: Date().addingTimeInterval(-3600)),
        ])
    }

    static var oldAgeInDays: Int {
        Int(Date().timeIntervalSince(Recordings.recordedAt) / 86_400)
    }

    @Test func maxAgeWarnsForEachRequestServedFromAnOlderRecording() async throws {
        try await recordOldAndNew()
        try await withInProcessProxy(["replay", "--db", workspace.storePath, "--port", "0", "--max-age", "90"]) { proxy in
            let old = try await proxy.get("/old")
            #expect(old.statusCode == 200 && old.bodyText == #"{"age":"old"}"#)
            _ = try await proxy.get("/old")
            let new = try await proxy.get("/new")
            #expect(new.statusCode == 200)
            await proxy.stop()
            let warnings = proxy.outputLines.filter { $0.hasPrefix("warning:") }
            let expected = "warning: GET /old served from a stale recording (recorded 2025-06-15T15:06:40Z, \(Self.oldAgeInDays) days ago; --max-age 90)"
            #expect(warnings == [expected, expected], "\(proxy.standardOutput)")
            #expect(proxy.summaryLine?.contains("stale 2") == true, "\(proxy.summaryLine ?? "")")
        }
    }

    @Test func staleFailRefusesOldRecordingsLikeAMissThatStrictCounts() async throws {
        try await recordOldAndNew()
        try await workspace.record([Recordings.make(.head, "/old", body: Data())])
        try await withInProcessProxy(["replay", "--db", workspace.storePath, "--port", "0", "--max-age", "90", "--stale", "fail", "--strict"]) { proxy in
            let old = try await proxy.get("/old")
            #expect(old.statusCode == 404)
            #expect(old.headerFields[ProxyHeaderNames.cassette] == "stale")
            let body = try old.jsonObject()
            #expect(body["error"] as? String == "cassette_stale")
            #expect(body["recordedAt"] as? String == "2025-06-15T15:06:40Z")
            #expect(try await proxy.get("/new").statusCode == 200)
            // HEAD takes another path through the proxy; it is refused all the same.
            #expect(try await proxy.send(.head, "/old").statusCode == 404)
            // What --strict counts to exit 1 (`ProxyStrictTests`).
            #expect(await proxy.stop().counters.missed == 2)
            #expect(proxy.summaryLine?.contains("refused as stale 2") == true, "\(proxy.summaryLine ?? "")")
        }
    }

    @Test func theConfigurationFileSetsMaxAgeAndStale() async throws {
        try await recordOldAndNew()
        try workspace.write(#"{"maxAge": 30, "stale": "fail"}"#, to: "cassette.json")
        try await withInProcessProxy(["replay", "--port", "0", "--db", workspace.storePath] + workspace.configArguments) { proxy async throws in
            #expect(try await proxy.get("/old").statusCode == 404)
            #expect(try await proxy.get("/new").statusCode == 200)
            await proxy.stop()
        }
    }

    @Test func listShowsAgesAndSelectsOldRecordings() async throws {
        try await recordOldAndNew()
        let all = try await workspace.run("list")
        #expect(all.status == 0, "\(all)")
        #expect(all.stdoutLines.first?.hasSuffix("AGE") == true, "\(all.stdout)")
        #expect(all.stdout.contains("\(Self.oldAgeInDays)d"))
        #expect(all.stdout.contains("dev: 2 recordings, 26 B of response bodies, 0 to \(Self.oldAgeInDays) days old"), "\(all.stdout)")

        let old = try await workspace.run("list", "--older-than", "90", "--json")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(old.stdout.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["key"] as? String } == ["GET /old"])
        #expect(rows.first?["ageDays"] as? Int == Self.oldAgeInDays)
        #expect(rows.first?["replayCount"] as? Int == 0)
    }

    @Test func usageIsRememberedOnlyWithTrackUsageAndSelectsUnusedRecordings() async throws {
        try await recordOldAndNew()
        let before = try Data(contentsOf: URL(fileURLWithPath: workspace.storePath))
        try await withInProcessProxy(["replay", "--db", workspace.storePath, "--port", "0"]) { proxy in
            _ = try await proxy.get("/new")
            await proxy.stop()
        }
        // A plain replay (CI) leaves a committed store exactly as it was.
        #expect(try Data(contentsOf: URL(fileURLWithPath: workspace.storePath)) == before)

        try await withInProcessProxy(["replay", "--db", workspace.storePath, "--port", "0", "--track-usage"]) { proxy in
            _ = try await proxy.get("/new")
            _ = try await proxy.get("/new")
            await proxy.stop()
            #expect(proxy.summaryLine?.contains("usage saved for 1 recording") == true, "\(proxy.summaryLine ?? "")")
        }
        let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
        let unused = try await workspace.run("list", "--unused-since", today)
        #expect(unused.status == 0, "\(unused)")
        #expect(unused.stdout.contains("GET /old") && !unused.stdout.contains("GET /new"), "\(unused.stdout)")
        #expect(unused.stdout.contains("1 recording of 2 matches --unused-since \(today)."))
        let json = try await workspace.run("list", "--json")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(rows.first { $0["key"] as? String == "GET /new" }?["replayCount"] as? Int == 2)
    }
}
