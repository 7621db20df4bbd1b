import Foundation
import TestSupport
import Testing
import WellPlateCore

/// A store that holds only gRPC calls (`Browser/ui_grpc_only_test.py`): at 1280x800 the Interactions
/// view says in one line that it has no HTTP interactions and shows the calls without a scroll, on
/// a replay and in the store's report; every view of it passes the WCAG 2.1 AA audit and the
/// keyboard reaches the calls.
extension BrowserTests {
    @Test func aStoreOfGRPCCallsOnlyShowsTheCallsFirstAndItsEmptyListInOneLine() async throws {
        try await Self.ensureAxe()
        let workspace = try CLIWorkspace()
        let store = workspace.storePath
        // The four kinds of call from grpcio, recorded with shop.proto's descriptors.
        let protosets = try TemporaryDirectory(prefix: "grpc-protoset")
        let protoset = try await GRPCPeers.protoset(in: protosets).path
        let scenario = ["get", "list", "count", "chat"]
        try await GRPCPeers.withServer { upstream in
            try await withRecorder(upstream: upstream, store: store, arguments: ["--protoset", protoset]) { recorder in
                let calls = try await GRPCPeers.runClient(scenario.joined(separator: ","), against: URL(string: "http://127.0.0.1:\(recorder.port)")!)
                #expect(calls.map(\.code) == scenario.map { _ in "OK" }, "\(calls.map(\.line.compactJSON))")
                #expect(try await recorder.stop() == .exited(0))
            }
        }
        #expect(try await workspace.count() == 0, "the store holds no HTTP interactions, only the gRPC calls")
        // The Drift view of the report compares the methods with what `export --fixtures` wrote.
        let exported = try await workspace.run("export", "--fixtures", "fixtures", "--db", store)
        try #require(exported.status == 0, "\(exported)")
        let report = try await workspace.run("report", "--html", "report.html", "--fixtures", "fixtures")
        try #require(report.status == 0, "\(report)")

        let script = ExternalTool.packageRoot.appendingPathComponent("Tests/CassetteUITests/Browser/ui_grpc_only_test.py").path
        // `--grpc-timing fast`: grpcio's unary call in the Live check is answered whole at the
        // HTTP/2 connection (`GRPCWholeReplay`), which must reach the Live view as the stream
        // path's calls do.
        let result = try await withReplayer(store: store, arguments: ["--grpc-timing", "fast"]) { proxy in
            try await ExternalTool.run(
                [
                    "python3", script, "--ui", "http://127.0.0.1:\(proxy.port)/__cassette/ui/", "--report", workspace.path("report.html"), "--calls",
                    String(scenario.count),
                ] + Self.screenshots(), cwd: workspace.directory)
        }
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("audit") || line.hasPrefix("  - ") || line.hasPrefix("measured:") {
            print(line)
        }
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("ok: all gRPC-only checks passed"), "\(result.stdout)")
    }
}
