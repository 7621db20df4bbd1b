import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The proxy's own endpoints under /__cassette/, for scripts that wait for it or check coverage.
@Suite("Proxy endpoints")
final class ProxyEndpointTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }

    init() throws {
        workspace = try CLIWorkspace()
    }

    func recordFixtures() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/users"),
            Recordings.make(.get, "/api/health"),
            Recordings.make(.get, "/api/me"),
        ])
    }

    @Test func healthReportsTheModeTheCassetteAndItsSize() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { replayer async throws in
            let response = try await replayer.get("/__cassette/health")
            #expect(response.statusCode == 200)
            #expect(response.cassetteSource == "endpoint")
            let health = try response.jsonObject()
            #expect(health["status"] as? String == "ok")
            #expect(health["mode"] as? String == "replay")
            #expect(health["cassette"] as? String == "dev")
            #expect(health["interactions"] as? Int == 3)
        }
    }

    @Test func statsCountHitsMissesAndHitsPerKey() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { replayer async throws in
            for target in ["/api/users", "/api/users", "/api/health", "/api/nowhere"] {
                _ = try await replayer.get(target)
            }
            let response = try await replayer.get("/__cassette/stats")
            #expect(response.statusCode == 200)
            let stats = try response.jsonObject()
            #expect(stats["hits"] as? Int == 3)
            #expect(stats["misses"] as? Int == 1)
            #expect(stats["recorded"] as? Int == 0)
            #expect(stats["perKeyHits"] as? [String: Int] == ["GET /api/users": 2, "GET /api/health": 1])
            #expect(stats["unused"] as? [String] == ["GET /api/me"])
        }
    }

    @Test func statsCountRecordingsWhileRecording() async throws {
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store) { recorder async throws in
                _ = try await recorder.get("/api/health")
                _ = try await recorder.get("/api/users")
                let stats = try await recorder.get("/__cassette/stats").jsonObject()
                #expect(stats["recorded"] as? Int == 2)
                #expect(stats["mode"] as? String == "record")
                #expect(stats["hits"] as? Int == 0)
            }
        }
    }

    @Test func endpointsAreNeverRecorded() async throws {
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store) { recorder async throws in
                #expect(try await recorder.get("/__cassette/health").cassetteSource == "endpoint")
                #expect(try await recorder.get("/__cassette/nothing-here").statusCode == 404)
            }
        }
        #expect(try await workspace.count() == 0)
    }
}
