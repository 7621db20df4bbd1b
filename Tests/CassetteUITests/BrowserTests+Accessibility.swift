import Foundation
import TestSupport
import Testing
import WellPlateCore

/// The UI's WCAG 2.1 AA audit and keyboard walk (`Browser/ui_accessibility_test.py`): axe-core in
/// headless Chromium over every view a `cassette replay` serves (a conversation, a gRPC call, a
/// live miss and a session among them), the Drift view of `cassette ui --fixtures` with what `export
/// --fixtures` wrote, and every view of the report opened from `file://`.
extension BrowserTests {
    /// Installs axe-core's script from PyPI (`axe-playwright-python`, which ships axe.min.js)
    /// when missing, and the browser.
    static func ensureAxe() async throws {
        let ensure = try await ExternalTool.run(
            ["bash", ExternalTool.packageRoot.appendingPathComponent("scripts/ensure-axe.sh").path], cwd: ExternalTool.packageRoot)
        try #require(ensure.status == 0, "could not install chromium, selenium or axe-core's script: \(ensure.stderr)")
    }

    @Test func everyViewPassesAWCAG21AAAuditAndTheKeyboardAloneOpensARecordingAndComesBack() async throws {
        try await Self.ensureAxe()
        let workspace = try CLIWorkspace()
        let store = workspace.storePath
        // 100 more than the views show, so the keyboard walk goes past the rows drawn at first.
        let more = (1...100).map { number in
            Interaction(
                cassette: "dev", method: .get, url: "http://api.example.test/more/\(number)", key: "GET /more/\(number)", statusCode: 200,
                responseHeaders: [.contentType: "application/json"], responseBody: Data(#"{"id":\#(number)}"#.utf8))
        }
        try await workspace.record(Self.recordings() + more)
        try await Self.recordMarkupConversation(into: store)
        // A gRPC server-streaming call from grpcio, recorded with shop.proto's descriptors: the
        // list's gRPC calls and the call's view (messages as protobuf JSON) are audited too.
        let protosets = try TemporaryDirectory(prefix: "grpc-protoset")
        let protoset = try await GRPCPeers.protoset(in: protosets).path
        try await GRPCPeers.withServer { upstream in
            try await withRecorder(upstream: upstream, store: store, arguments: ["--protoset", protoset]) { recorder in
                let calls = try await GRPCPeers.runClient("list", against: URL(string: "http://127.0.0.1:\(recorder.port)")!)
                #expect(calls.map(\.code) == ["OK"], "\(calls.map(\.line.compactJSON))")
                #expect(try await recorder.stop() == .exited(0))
            }
        }
        // What `export --fixtures` writes (websocket/chat.json among them), and a fixture of
        // GET /items/{id} with a field the API never sends, so the drift has a finding.
        let exported = try await workspace.run("export", "--fixtures", "fixtures", "--db", store)
        try #require(exported.status == 0, "\(exported)")
        try #require(workspace.fileExists("fixtures/websocket/chat.json"), "\(exported)")
        try workspace.write(
            #"{"id": 1, "name": "item 1", "color": "red", "tags": [], "price": {"amount": 1, "currency": "EUR"}}"#, to: "fixtures/mock_items_id_get.json")
        let report = try await workspace.run("report", "--html", "report.html", "--fixtures", "fixtures")
        try #require(report.status == 0, "\(report)")

        let script = ExternalTool.packageRoot.appendingPathComponent("Tests/CassetteUITests/Browser/ui_accessibility_test.py").path
        let result = try await withChildProcess("cassette", arguments: ["ui", "--db", store, "--port", "0", "--fixtures", workspace.path("fixtures")]) { ui in
            try await ui.waitForOutput("the ui line") { $0.contains("ui on ") }
            let line = try #require(ui.standardOutput.split(separator: "\n").first { $0.hasPrefix("ui on ") })
            let fixturesUI = String(line.dropFirst("ui on ".count)) + "__cassette/ui/"
            return try await withReplayer(store: store) { proxy in
                try await ExternalTool.run(
                    ["python3", script, "--proxy", "http://127.0.0.1:\(proxy.port)", "--fixtures-ui", fixturesUI, "--report", workspace.path("report.html")],
                    cwd: workspace.directory)
            }
        }
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("audit") || line.hasPrefix("  - ") {
            print(line)
        }
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("ok: all accessibility checks passed"), "\(result.stdout)")
    }
}
