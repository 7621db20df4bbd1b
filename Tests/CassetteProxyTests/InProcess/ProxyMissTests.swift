import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// What `cassette replay` does with a request it has no recording for: explain it, answer with
/// the chosen status, forward it, or record it (the exit status `--strict` makes of misses:
/// `ProxyStrictTests`).
@Suite("Proxy replay misses")
final class ProxyMissTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }

    init() throws {
        workspace = try CLIWorkspace()
    }

    func recordFixtures() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/users?limit=10", body: Recordings.json(#"{"users":[]}"#)),
            Recordings.make(
                .post, "/api/nutrition/analyze",
                requestHeaders: [.contentType: "application/json"], requestBody: Recordings.json(#"{"food":"apple","grams":100}"#),
                body: Recordings.json(#"{"calories":52}"#)
            ),
        ])
    }

    @Test func aMissIsA404WhoseJSONNamesTheKeyTheNearestRecordingsAndWhatDiffers() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { replayer async throws in
            let response = try await replayer.get("/api/users?limit=20")
            #expect(response.statusCode == 404)
            #expect(response.cassetteSource == "miss")
            #expect(response.headerFields[.contentType]?.hasPrefix("application/json") == true)
            let body = try response.jsonObject()
            #expect(body["error"] as? String == "cassette_miss")
            #expect(body["key"] as? String == "GET /api/users?limit=20")
            let nearest = try #require(body["nearest"] as? [[String: Any]])
            let first = try #require(nearest.first)
            #expect(first["key"] as? String == "GET /api/users?limit=10")
            let differences = try #require(first["differences"] as? [String])
            #expect(differences.contains { $0.contains("limit") && $0.contains("20") && $0.contains("10") }, "\(differences)")

            let post = try await replayer.send(.post, "/api/nutrition/analyze", json: #"{"food":"apple","grams":150}"#)
            #expect(post.statusCode == 404)
            let postNearest = try #require(try post.jsonObject()["nearest"] as? [[String: Any]])
            let bodyDifferences = try #require(postNearest.first?["differences"] as? [String])
            #expect(bodyDifferences.contains { $0.contains("grams") }, "\(bodyDifferences)")
        }
    }

    @Test func missStatusChangesTheStatusOfAMissOnly() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store, arguments: ["--miss-status", "599"]) { replayer async throws in
            let miss = try await replayer.get("/api/users?limit=20")
            #expect(miss.statusCode == 599)
            #expect(miss.cassetteSource == "miss")
            #expect(try miss.jsonObject()["error"] as? String == "cassette_miss")
            #expect(try await replayer.get("/api/users?limit=10").statusCode == 200)
        }
    }

    @Test func passthroughForwardsAMissWithoutRecordingIt() async throws {
        try await recordFixtures()
        let before = try await workspace.count()
        try await withSampleAPI { api async throws in
            try await withInProcessReplayer(store: store, arguments: ["--on-miss", "passthrough", "--upstream", api.absoluteString]) { replayer async throws in
                let forwarded = try await replayer.get("/api/health")
                #expect(forwarded.statusCode == 200)
                #expect(forwarded.cassetteSource == "passthrough")
                #expect(try forwarded.jsonObject()["status"] as? String == "ok")
                #expect(try await replayer.get("/api/users?limit=10").cassetteSource == "hit")
                await replayer.stop()
                #expect(replayer.summaryLine?.contains("passed through 1") == true)
            }
        }
        #expect(try await workspace.count() == before)
    }

    @Test func onMissRecordForwardsAndRecordsTheMiss() async throws {
        try await recordFixtures()
        let before = try await workspace.count()
        try await withSampleAPI { api async throws in
            try await withInProcessReplayer(store: store, arguments: ["--on-miss", "record", "--upstream", api.absoluteString]) { replayer async throws in
                let recorded = try await replayer.get("/api/health")
                #expect(recorded.statusCode == 200)
                #expect(recorded.cassetteSource == "recorded")
                #expect(try await replayer.get("/api/users?limit=10").cassetteSource == "hit")
            }
        }
        #expect(try await workspace.count() == before + 1)
        try await withInProcessReplayer(store: store) { replayer async throws in
            #expect(try await replayer.get("/api/health").cassetteSource == "hit")
        }
    }

}
