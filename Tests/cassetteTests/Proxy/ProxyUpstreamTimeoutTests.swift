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
            try await withRecorder(upstream: base, store: store, arguments: ["--upstream-timeout", "0.5"]) { recorder in
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
            try await withProxy(["record", "--env", "dev", "--port", "0", "--db", store], workingDirectory: workspace.directory.path) { recorder async throws in
                #expect(try await recorder.get("/api/slow?ms=3000").statusCode == 504)
            }
            try await withProxy(
                ["record", "--env", "dev", "--port", "0", "--db", store, "--upstream-timeout", "10"], workingDirectory: workspace.directory.path
            ) { recorder async throws in
                #expect(try await recorder.get("/api/slow?ms=1000").statusCode == 200)
            }
        }
    }

    @Test(arguments: ["0", "-1", "3601", "nan", "soon"])
    func anOutOfRangeValueIsAUsageError(value: String) async throws {
        let result = try await workspace.run("record", "--upstream", "http://127.0.0.1:1", "--port", "0", "--upstream-timeout", value)
        #expect(result.status == 64 || result.status == 2, "\(result)")
        #expect(result.stderr.contains("--upstream-timeout"), "\(result)")
    }

    @Test func anOutOfRangeValueInTheFileNamesTheKey() async throws {
        try workspace.write(#"{"upstreamTimeout": 0}"#, to: "cassette.json")
        let result = try await workspace.run("record", "--upstream", "http://127.0.0.1:1", "--port", "0")
        #expect(result.status != 0)
        #expect(result.stderr.contains("\"upstreamTimeout\": is the number 0, not a number of seconds from 0.1 to 3600"), "\(result)")
    }
}
