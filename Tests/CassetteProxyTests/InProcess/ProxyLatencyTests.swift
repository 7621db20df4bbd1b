import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `--latency`: replayed answers held back by a fixed time or by the time the recording took.
@Suite("Proxy replay latency")
final class ProxyLatencyTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// How long one request through `proxy` takes, and its response.
    func timed(_ target: String, through proxy: any RunningProxy) async throws -> (Duration, TransportResponse) {
        let started = ContinuousClock.now
        let response = try await proxy.get(target)
        return (ContinuousClock.now - started, response)
    }

    @Test func aFixedLatencyDelaysEveryReplayedAnswer() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users", milliseconds: 5)])
        try await withInProcessReplayer(store: store, arguments: ["--latency", "300"]) { replayer async throws in
            let (elapsed, response) = try await timed("/api/users", through: replayer)
            #expect(response.cassetteSource == "hit")
            #expect(elapsed >= .milliseconds(300), "took \(elapsed)")
        }
    }

    @Test func recordedLatencyReplaysTheRecordedDuration() async throws {
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store) { recorder async throws in
                #expect(try await recorder.get("/api/slow?ms=3000").statusCode == 200)
                #expect(try await recorder.get("/api/health").statusCode == 200)
            }
        }
        try await withInProcessReplayer(store: store, arguments: ["--latency", "recorded"]) { replayer async throws in
            let (slow, response) = try await timed("/api/slow?ms=3000", through: replayer)
            #expect(response.cassetteSource == "hit")
            #expect(slow >= .milliseconds(2950), "took \(slow)")
            let (fast, _) = try await timed("/api/health", through: replayer)
            // Relative, not a fixed bound: a loaded machine slows both alike, and the slow one's
            // recorded 3 s leaves a local request seconds of room. How fast a replay is belongs in
            // Benchmarks/.
            #expect(fast < slow, "a fast recording stays faster than the slow one (took \(fast), the slow one \(slow))")
        }
    }

    @Test(arguments: ["-5", "soon", "1.5"])
    func anInvalidLatencyIsAUsageError(latency: String) async throws {
        try await workspace.record([Recordings.make(.get, "/api/users")])
        let result = try await workspace.run("replay", "--port", "0", "--latency", latency)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.split(separator: "\n").first?.contains("--latency") == true, "\(result)")
    }

    /// The largest `--latency` the flag takes (out-of-range ones: `OutOfRangeInputTests`) is
    /// converted without trapping, and the proxy starts and stops.
    @Test func theLargestLatencyIsAccepted() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users")])
        try await withInProcessReplayer(store: store, arguments: ["--latency", "86400000"]) { replayer async throws in
            _ = await replayer.stop()
        }
    }
}
