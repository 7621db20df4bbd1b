import Foundation
import TestSupport
import Testing
import WellPlateCore

/// gRPC calls in what the proxy says when it stops and in `--track-usage`, with grpcio on both
/// ends: a replayed call counts the one recording that answered it (not every recording of its
/// method), a miss counts for `--strict`, and a recorded call counts as recorded.
@Suite("gRPC calls in the proxy's summary and usage")
final class ProxyGRPCUsageTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("grpc.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test("a replayed call counts the recording that answered it; a miss counts for --strict")
    func countsPerCallServed() async throws {
        let directory = try TemporaryDirectory(prefix: "grpc-protoset")
        let protoset = try await GRPCPeers.protoset(in: directory).path
        // GetItem three times (three recordings of one method), ListItems once.
        let recordedSummary = try await GRPCPeers.withServer { upstream in
            try await withInProcessProxy(["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store, "--protoset", protoset]) {
                proxy in
                _ = try await GRPCPeers.runClient("get,other,missing,list", against: proxy.url(""))
                return await proxy.stop().summary
            }
        }
        #expect(recordedSummary.first?.contains("gRPC calls recorded 4, replayed 0, missed 0") == true, "\(recordedSummary)")

        let (calls, stopped, lines) = try await withInProcessReplayer(store: store, arguments: ["--track-usage"]) { replayer in
            let calls = try await GRPCPeers.runClient("get,never", against: replayer.url(""))
            let stopped = await replayer.stop()
            return (calls, stopped, replayer.outputLines)
        }
        #expect(lines.contains { $0.hasPrefix("POST /shop.v1.Catalog/GetItem 200 ") && $0.hasSuffix("gRPC NOT_FOUND missed") }, "\(lines)")
        #expect(calls.map(\.code) == ["OK", "NOT_FOUND"], "\(calls.map(\.line.compactJSON))")
        let summary = stopped.summary.first ?? ""
        #expect(summary.contains("gRPC calls recorded 0, replayed 1, missed 1"), "\(stopped.summary)")
        #expect(summary.contains("usage saved for 0 recordings and 1 gRPC call"), "\(stopped.summary)")
        #expect(summary.contains("unused gRPC methods 1"), "\(stopped.summary)")
        #expect(stopped.summary.contains("  unused: gRPC /shop.v1.Catalog/ListItems"), "\(stopped.summary)")
        #expect(stopped.counters.missed == 1, "--strict sees the miss")

        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let usage = try await opened.conversationUsage(cassette: "dev")
        let served = try await opened.conversations(cassette: "dev").filter { $0.key == "POST /shop.v1.Catalog/GetItem" && $0.sequence == 0 }
        try await opened.close()
        // Only the recording of `get` (GetItem's first) answered, once.
        #expect(usage.mapValues(\.replayCount) == [try #require(served.first?.id): 1], "\(usage)")
    }
}
