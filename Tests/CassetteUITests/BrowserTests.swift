import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore

/// The web UI in a real browser: headless Chromium driven by selenium from
/// `Browser/ui_browser_test.py`, against a real `cassette replay` and a real `cassette report`.
/// With `CASSETTE_UI_SCREENSHOTS=DIR` it saves its screenshots there (`docs/ui` for the ones
/// docs/ui.md shows).
@Suite(.serialized) struct BrowserTests {
    /// What the UI shows: `UIRecordings`.
    static func recordings() -> [Interaction] {
        UIRecordings.interactions()
    }

    static var secret: String { UIRecordings.secret }

    /// The `websockets` upstream's "markup" conversation (text frames with markup, ticks and a
    /// close with a reason), recorded into `store` through `cassette record`.
    static func recordMarkupConversation(into store: String) async throws {
        try await WebSocketPeers.withUpstream { base in
            try await withRecorder(upstream: base, store: store) { recorder in
                let received = try await WebSocketPeers.client("ws://127.0.0.1:\(recorder.port)/chat", script: "markup")
                #expect(received.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(received)")
                try await recorder.waitForLogLine(containing: "101 WebSocket recording")
                #expect(try await recorder.stop() == .exited(0))
            }
        }
    }

    /// Installs Debian's chromium, chromium-driver and the PyPI selenium package when missing.
    static func ensureBrowser() async throws {
        let ensure = try await ExternalTool.run(
            ["bash", ExternalTool.packageRoot.appendingPathComponent("scripts/ensure-browser.sh").path], cwd: ExternalTool.packageRoot)
        try #require(ensure.status == 0, "could not install chromium, chromium-driver or selenium: \(ensure.stderr)")
    }

    @Test func theUIWorksInChromiumAgainstAReplayAndItsReportOffline() async throws {
        try await Self.ensureBrowser()
        let workspace = try CLIWorkspace()
        let recordings = Self.recordings()
        try await workspace.record(recordings)
        // A fixture of GET /items/{id} with a field the API never sends: the report's drift.
        try workspace.write(
            #"{"id": 1, "name": "item 1", "color": "red", "tags": [], "price": {"amount": 1, "currency": "EUR"}}"#, to: "fixtures/mock_items_id_get.json")
        let report = try await workspace.run("report", "--html", "report.html", "--fixtures", "fixtures")
        try #require(report.status == 0, "\(report)")

        let script = ExternalTool.packageRoot.appendingPathComponent("Tests/CassetteUITests/Browser/ui_browser_test.py").path
        let screenshots = Self.screenshots()
        let result = try await withReplayer(store: workspace.storePath) { proxy in
            try await ExternalTool.run(
                [
                    "python3", script, "--proxy", "http://127.0.0.1:\(proxy.port)", "--count", String(recordings.count),
                    "--report", workspace.path("report.html"), "--secret", Self.secret,
                ] + screenshots, cwd: workspace.directory)
        }
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("ok: all browser checks passed"), "\(result.stdout)")
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("measured:") {
            print(line)
        }
    }

    /// A conversation recorded from the PyPI `websockets` upstream through `cassette record`: a
    /// JSON hello, a text message holding `<script>` and `<img onerror>`, five binary bytes, the
    /// upstream's ticks and its close. The page lists it and draws its timeline, on a replay and
    /// in the store's report opened offline; the markup is text and never runs.
    @Test func aWebSocketConversationIsATimelineOnTheProxyAndInTheReport() async throws {
        try await Self.ensureBrowser()
        let workspace = try CLIWorkspace()
        let store = workspace.storePath
        try await Self.recordMarkupConversation(into: store)
        let report = try await workspace.run("report", "--html", "report.html")
        try #require(report.status == 0, "\(report)")
        let script = ExternalTool.packageRoot.appendingPathComponent("Tests/CassetteUITests/Browser/ui_conversation_test.py").path
        let result = try await withReplayer(store: store) { proxy in
            try await ExternalTool.run(
                ["python3", script, "--ui", "http://127.0.0.1:\(proxy.port)/__cassette/ui/", "--report", workspace.path("report.html")] + Self.screenshots(),
                cwd: workspace.directory)
        }
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("ok: all conversation checks passed"), "\(result.stdout)")
    }

    /// `cassette run --report` of a command that makes a hit and a miss, then opens a session that
    /// makes a hit and a miss and closes it: the report's Sessions view shows the run's requests
    /// and the session's journal with their misses explained; a store's report says it has none.
    /// Both views pass the WCAG 2.1 AA audit (`BrowserTests+Accessibility.swift`).
    @Test func theReportOfARunShowsItsRequestsAndSessionsAndAStoresReportSaysItHasNone() async throws {
        try await Self.ensureAxe()
        let workspace = try CLIWorkspace()
        let recordings = Self.recordings()
        try await workspace.record(recordings)
        try workspace.write(Self.runScript, to: "requests.py")
        let run = try await workspace.run("run", "--report", "run.html", "--", "python3", "requests.py")
        try #require(run.status == 0, "\(run)")
        let session = try String(contentsOfFile: workspace.path("session.txt"), encoding: .utf8)
        let report = try await workspace.run("report", "--html", "store.html")
        try #require(report.status == 0, "\(report)")
        let script = ExternalTool.packageRoot.appendingPathComponent("Tests/CassetteUITests/Browser/ui_run_report_test.py").path
        let result = try await ExternalTool.run(
            [
                "python3", script, "--run-report", workspace.path("run.html"), "--store-report", workspace.path("store.html"), "--session", session,
                "--unused", String(recordings.count - 1),
            ] + Self.screenshots(), cwd: workspace.directory)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("ok: all report session checks passed"), "\(result.stdout)")
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("audit: ") || line.hasPrefix("  - ") {
            print(line)
        }
    }

    /// What the run's command does, against the proxy `cassette run` started: a hit and a miss
    /// outside sessions, then a session with a hit and a miss, closed; the session's id goes to
    /// session.txt.
    static let runScript = """
        import json, os, urllib.error, urllib.request
        base = os.environ["CASSETTE_URL"]
        def send(path, headers=None, data=None, method=None):
            request = urllib.request.Request(base + path, data=data, headers=headers or {}, method=method)
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    return response.read()
            except urllib.error.HTTPError as error:
                return error.read()
        send("/items/1")
        send("/items/1?color=red")
        session = json.loads(send("/__cassette/sessions", {"Content-Type": "application/json"}, b'{"cassette": "dev"}', "POST"))["id"]
        send("/items/2", {"X-Cassette-Session": session})
        send("/items/2?size=9", {"X-Cassette-Session": session})
        send("/__cassette/sessions/" + session, method="DELETE")
        open("session.txt", "w").write(session)

        """

    /// `--screenshots DIR` when `CASSETTE_UI_SCREENSHOTS=DIR` asks for them (`docs/ui` refreshes
    /// the docs' own), so a test run leaves the work tree as it was.
    static func screenshots() -> [String] {
        guard let directory = ProcessInfo.processInfo.environment["CASSETTE_UI_SCREENSHOTS"], !directory.isEmpty else { return [] }
        return ["--screenshots", URL(fileURLWithPath: directory, relativeTo: ExternalTool.packageRoot).path]
    }

    /// 100,000 recordings: the list holds a screenful of rows whatever the store's size, counts
    /// them all, filters them, and draws the last one after a scroll to the end. The times are
    /// printed, never asserted (Benchmarks/ui-list.sh gives the figures).
    @Test func theListOfAHundredThousandRecordingsDrawsOnlyTheRowsInView() async throws {
        try await Self.ensureBrowser()
        let workspace = try CLIWorkspace()
        let count = 100_000
        try await Self.fillLargeStore(at: workspace.storePath, count: count)

        let script = ExternalTool.packageRoot.appendingPathComponent("Tests/CassetteUITests/Browser/ui_list_test.py").path
        let result = try await withReplayer(store: workspace.storePath) { proxy in
            try await ExternalTool.run(
                [
                    "python3", script, "--ui", "http://127.0.0.1:\(proxy.port)/__cassette/ui/", "--count", String(count), "--filter", "/api/medium/",
                    "--filtered", String((count + 1) / 3),
                ], cwd: workspace.directory)
        }
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("ok: the list stays virtualized at 100000 rows"), "\(result.stdout)")
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("measured:") {
            print(line)
        }
    }

    /// `count` small JSON recordings cycling through /api/small/N, /api/medium/N and /api/large/N
    /// (as `bench-tool make-store` makes them), written in batches.
    static func fillLargeStore(at path: String, count: Int) async throws {
        let store = try await CassetteStore.open(path: path, access: .readWrite)
        var batch: [Interaction] = []
        for index in 0..<count {
            let target = "/api/\(["small", "medium", "large"][index % 3])/\(index)"
            batch.append(
                Interaction(
                    cassette: "dev", method: .get, url: "http://api.example.test\(target)", key: "GET \(target)", statusCode: 200,
                    responseHeaders: [.contentType: "application/json"], responseBody: Data(#"{"id":\#(index),"name":"item \#(index)"}"#.utf8)))
            if batch.count == 10_000 {
                try await store.record(batch: batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try await store.record(batch: batch) }
        try await store.close()
    }
}
