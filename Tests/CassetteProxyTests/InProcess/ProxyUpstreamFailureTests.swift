import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Recording when the real API cannot be reached: the client learns why, and nothing is stored.
@Suite("Proxy upstream failures")
final class ProxyUpstreamFailureTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func anUnreachableUpstreamGets502NamingItAndTheReasonAndRecordsNothing() async throws {
        try await Ports.withRefusingPort { port async throws in
            let upstream = "http://127.0.0.1:\(port)"
            try await withInProcessRecorder(upstream: URL(string: upstream)!, store: store) { recorder async throws in
                let response = try await recorder.get("/api/users")
                #expect(response.statusCode == 502)
                #expect(response.cassetteSource == "error")
                let body = try response.jsonObject()
                #expect(body["error"] as? String == "upstream_unreachable")
                #expect(body["upstream"] as? String == upstream)
                let message = try #require(body["message"] as? String)
                #expect(message.contains(upstream) && message.localizedCaseInsensitiveContains("connect"), "\(message)")

                let stats = try await recorder.get("/__cassette/stats").jsonObject()
                #expect(stats["recorded"] as? Int == 0)
                await recorder.stop()
                #expect(recorder.outputLines.contains { $0.hasPrefix("GET /api/users 502 ") && $0.hasSuffix(" error") })
                #expect(recorder.summaryLine == "recorded 0, replayed 0, missed 0, unused recordings 0")
            }
        }
        #expect(try await StoreFiles.interactions(at: store).isEmpty)
    }
}
