import Foundation
import TestSupport
import Testing
import WellPlateCore

/// `cassette ui`'s Cassettes view over a store of every kind (`Browser/ui_mixed_store_test.py`):
/// REST and a GraphQL query in `dev` with a WebSocket conversation recorded from the PyPI
/// `websockets` upstream, grpcio's four kinds of call in `shop`, each cassette replayed with
/// `--track-usage`, and `legacy`, never replayed. Each Unused is what its replay's summary
/// printed; `legacy`'s is `unknown`, explained. No WCAG 2.1 AA violation; docs/ui.md's
/// cassettes.png with `CASSETTE_UI_SCREENSHOTS`.
extension BrowserTests {
    @Test func cassetteUIShowsTheUnusedFiguresOfTrackedReplaysOverAStoreOfEveryKind() async throws {
        try await Self.ensureAxe()
        let workspace = try CLIWorkspace()
        let store = workspace.storePath
        let legacy = (1...3).map { number in
            Interaction(
                cassette: "legacy", method: .get, url: "http://legacy.example.test/v1/items/\(number)", key: "GET /v1/items/\(number)", statusCode: 200,
                responseHeaders: [.contentType: "application/json"], responseBody: Data(#"{"id":\#(number)}"#.utf8))
        }
        try await workspace.record(Self.recordings() + legacy)
        try await Self.recordMarkupConversation(into: store)
        let scenario = ["get", "list", "count", "chat"]
        try await GRPCPeers.withServer { upstream in
            try await withRecorder(upstream: upstream, store: store, arguments: ["--cassette", "shop"]) { recorder in
                let calls = try await GRPCPeers.runClient(scenario.joined(separator: ","), against: URL(string: "http://127.0.0.1:\(recorder.port)")!)
                #expect(calls.map(\.code) == scenario.map { _ in "OK" }, "\(calls.map(\.line.compactJSON))")
                #expect(try await recorder.stop() == .exited(0))
            }
        }
        let dev = try await withReplayer(store: store, arguments: ["--track-usage"]) { replayer in
            for path in ["/items/1", "/items/2"] {
                #expect(try await ProxyClient.send(.get, URL(string: "http://127.0.0.1:\(replayer.port)\(path)")!).statusCode == 200)
            }
            #expect(try await replayer.stop() == .exited(0))
            return try #require(replayer.summaryLine)
        }
        let shop = try await withReplayer(store: store, arguments: ["--track-usage", "--cassette", "shop"]) { replayer in
            let calls = try await GRPCPeers.runClient("get", against: URL(string: "http://127.0.0.1:\(replayer.port)")!)
            #expect(calls.map(\.code) == ["OK"], "\(calls.map(\.line.compactJSON))")
            #expect(try await replayer.stop() == .exited(0))
            return try #require(replayer.summaryLine)
        }
        let devUnused = try #require(UIUnusedFromUsageTests.figure("unused recordings", in: dev), "\(dev)")
        let shopMethods = try #require(UIUnusedFromUsageTests.figure("unused gRPC methods", in: shop), "\(shop)")
        print("dev: \(dev)\nshop: \(shop)")

        let script = ExternalTool.packageRoot.appendingPathComponent("Tests/CassetteUITests/Browser/ui_mixed_store_test.py").path
        let result = try await withChildProcess("cassette", arguments: ["ui", "--db", store, "--port", "0"]) { ui in
            try await ui.waitForOutput("the ui line") { $0.contains("ui on ") }
            let line = try #require(ui.standardOutput.split(separator: "\n").first { $0.hasPrefix("ui on ") })
            return try await ExternalTool.run(
                [
                    "python3", script, "--ui", String(line.dropFirst("ui on ".count)) + "__cassette/ui/", "--unused", "dev=\(devUnused)",
                    "--unused", "shop=\(shopMethods) gRPC methods", "--unused", "legacy=unknown",
                ] + Self.screenshots(), cwd: workspace.directory)
        }
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("audit") || line.hasPrefix("  - ") {
            print(line)
        }
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("ok: all mixed store checks passed"), "\(result.stdout)")
    }
}
