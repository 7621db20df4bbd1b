import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `--upstream-timeout SECONDS` and cassette.json's `upstreamTimeout`: how long a forwarded
/// request may take before the client gets a 504.
@Suite("Proxy upstream timeout")
final class ProxyUpstreamTimeoutTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func aSlowerUpstreamGets504AndNothingIsRecorded() async throws {
        try await withSampleAPI { base in
            try await withInProcessRecorder(upstream: base, store: store, arguments: ["--upstream-timeout", "0.5"]) { recorder in
                let slow = try await recorder.get("/api/slow?ms=3000")
                #expect(slow.statusCode == 504)
                #expect(try slow.jsonObject()["error"] as? String == "upstream_timeout")
                let quick = try await recorder.get("/api/slow?ms=10")
                #expect(quick.statusCode == 200)
            }
        }
        #expect(try await StoreFiles.interactions(at: store).map(\.url).allSatisfy { $0.hasSuffix("ms=10") })
    }

    @Test func theConfigurationFileSetsItAndTheFlagWins() async throws {
        try await withSampleAPI { base in
            try workspace.write(#"{"upstreamTimeout": 0.5, "environments": {"dev": {"upstream": "\#(base.absoluteString)"}}}"#, to: "cassette.json")
            try await withInProcessProxy(["record", "--env", "dev", "--port", "0", "--db", store] + workspace.configArguments) { recorder async throws in
                #expect(try await recorder.get("/api/slow?ms=3000").statusCode == 504)
            }
            try await withInProcessProxy(
                ["record", "--env", "dev", "--port", "0", "--db", store, "--upstream-timeout", "10"] + workspace.configArguments
            ) { recorder async throws in
                #expect(try await recorder.get("/api/slow?ms=1000").statusCode == 200)
            }
        }
    }

}
