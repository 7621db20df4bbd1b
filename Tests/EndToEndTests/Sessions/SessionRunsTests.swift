import CassetteControl
import CassetteTesting
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// A test suite whose app runs in another process, as UI tests drive one: the app
/// (scripts/sample-session.sh, the live client `cassette request` reading `API_BASE_URL` as
/// `AppConfig` does) gets a session's `baseURL` from `withCassetteSession`, which names the
/// cassette after this test. Run 1 records with the sample API up; run 2 replays with the sample
/// API stopped and `CI=1`; run 3 adds a call that was never recorded, and the test fails with the
/// miss explained.
@Suite("Sessions: an app in another process, three runs")
final class SessionRunsTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("ui-tests.db") }
    /// The calls of scripts/sample-session.sh, in order.
    static let paths = [
        "/api/health", "/api/users", "/api/users/1", "/api/users", "/api/users/4", "/api/me", "/api/nutrition/analyze", "/api/nutrition/history",
        "/api/users/4", "/api/users/42",
    ]

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Runs the app against `baseURL`; with `extraCall`, it makes that call last.
    func runApp(baseURL: URL, extraCall: String? = nil) async throws -> (status: TestSupport.ExitStatus, output: String) {
        let script = ExternalTool.packageRoot.appendingPathComponent("scripts/sample-session.sh").path
        var environment = ["API_BASE_URL": baseURL.absoluteString, "CASSETTE_BIN": try BuiltProducts.executable(named: "cassette"), "NO_COLOR": "1"]
        environment["SESSION_EXTRA_CALL"] = extraCall
        return try await withChildProcess("/bin/bash", arguments: [script], environment: environment) { app in
            let status = try await app.waitForExit(timeout: .seconds(120))
            return (status, app.standardOutput + app.standardError)
        }
    }

    /// The proxy for the whole suite, as CI would start it: its mode is each session's.
    func withSuiteProxy<Result>(upstream: URL, _ body: (ProxyProcess) async throws -> Result) async throws -> Result {
        try await withRecorder(upstream: upstream, store: store, arguments: ["--quiet"], body)
    }

    @Test func theAppRecordsOnceThenReplaysOnCIAndAnUnrecordedCallFailsTheTest() async throws {
        // Run 1, on a developer machine: nothing recorded yet, the sample API up; mode `once` records.
        let stoppedAPI = try await withSampleAPI { api async throws -> URL in
            try await withSuiteProxy(upstream: api) { proxy async throws in
                try await withCassetteSession(control: proxy.url, environment: [:]) { session async throws in
                    #expect(session.mode == .once)
                    let app = try await runApp(baseURL: session.baseURL)
                    #expect(app.status == .exited(0), "\(app.output)")
                    let journal = try await session.requests()
                    #expect(journal.map(\.path) == Self.paths)
                    #expect(Set(journal.map(\.source)) == [.recorded])
                }
            }
            return api
        }
        let cassette = "SessionRunsTests/theAppRecordsOnceThenReplaysOnCIAndAnUnrecordedCallFailsTheTest()"
        #expect(try await workspace.count(cassette: cassette, in: "ui-tests.db") == Self.paths.count)
        // The sample API is gone: nothing answers at its address any more.
        await #expect(throws: (any Error).self) { try await ProxyClient.send(.get, stoppedAPI.appending(path: "api/health")) }

        // Run 2, on CI: the same suite replays without the API, from `cassette replay
        // --sessions-only`, which needs no cassette of its own (the store holds only the test's).
        try await withReplayer(store: store, arguments: ["--sessions-only", "--quiet"]) { proxy async throws in
            try await withCassetteSession(control: proxy.url, environment: ["CI": "1"]) { session async throws in
                #expect(session.mode == CassetteControl.Mode.replayOnly)
                #expect(session.cassette == cassette)
                let app = try await runApp(baseURL: session.baseURL)
                #expect(app.status == .exited(0), "\(app.output)")
                let journal = try await session.requests()
                #expect(journal.map(\.path) == Self.paths)
                #expect(Set(journal.map(\.source)) == [.hit])
                #expect(journal.map(\.key).compactMap { $0 }.count == Self.paths.count)
            }
        }

        // Run 3, on CI, after the app gained a call nobody recorded: the test fails and says why.
        let store = store
        try await withSuiteProxy(upstream: stoppedAPI) { proxy async throws in
            try await withKnownIssue {
                try await withCassetteSession(control: proxy.url, environment: ["CI": "1"]) { session async throws in
                    let app = try await runApp(baseURL: session.baseURL, extraCall: "/api/users/3/friends")
                    #expect(app.output.contains("404"), "\(app.output)")
                    #expect(try await session.requests().last?.source == .miss)
                }
            } matching: { issue in
                let text = issue.comments.map(\.rawValue).joined()
                return text.hasPrefix("No recording of GET /api/users/3/friends in cassette \"\(cassette)\" (\(store))")
                    && text.contains("nearest: GET /api/users/")
                    && text.hasSuffix("Record it by running the test with CASSETTE_RECORD=missing (outside CI), or fix the request.")
            }
        }
    }
}
