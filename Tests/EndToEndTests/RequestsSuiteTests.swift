import Foundation
import TestSupport
import Testing

/// The `requests` library's own test suite (its sdist from PyPI, against pytest-httpbin's
/// server, the upstream it is written for), through `cassette record` and then `cassette
/// replay` with the server stopped, on another port than it recorded on
/// (scripts/requests-suite.sh). Every test that passes against httpbin directly passes through
/// the replay but the two that wait for a read timeout, which a replay without `--latency
/// recorded` answers at once: among them the test that reads back its `Proxy-Authorization`
/// from httpbin's echo (a secret the store holds as `REDACTED`) and the redirects whose target
/// names the proxy's own address.
@Suite("requests' own test suite through record and replay")
struct RequestsSuiteTests {
    struct Summary: Decodable {
        var counted: [String]
        var failed: [String: [String]]
    }

    static let readTimeouts: Set<String> = [
        "tests.test_requests.TestTimeout::test_read_timeout[timeout0]", "tests.test_requests.TestTimeout::test_read_timeout[timeout1]",
    ]

    @Test(.timeLimit(.minutes(30)))
    func everyTestButTheReadTimeoutsPassesThroughReplay() async throws {
        // The virtual environment and the suite are kept between runs beside the build.
        let work = ExternalTool.packageRoot.appendingPathComponent(".build/requests-suite")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let summaryPath = work.appendingPathComponent("summary-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: summaryPath) }
        let script = ExternalTool.packageRoot.appendingPathComponent("scripts/requests-suite.sh").path
        let result = try await runToCompletion(
            "/bin/bash", [script, work.path, "--no-mitmproxy", "--summary", summaryPath.path], cwd: ExternalTool.packageRoot,
            environment: ["CASSETTE": try cassetteExecutable().path], timeout: .seconds(1700))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let summary = try JSONDecoder().decode(Summary.self, from: Data(contentsOf: summaryPath))
        // requests 2.3x: about two hundred of its tests reach plain-HTTP httpbin and pass there.
        #expect(summary.counted.count > 100, "\(result.stdout)")
        #expect(summary.failed["cassette record"] == [], "\(result.stdout)")
        let replayFailures = Set(summary.failed["cassette replay"] ?? ["(no replay run)"])
        #expect(replayFailures.isSubset(of: Self.readTimeouts), "\(result.stdout)")
        for test in [
            "tests.test_requests.TestRequests::test_proxy_authorization_preserved_on_request",
            "tests.test_requests.TestRequests::test_uppercase_scheme_redirect",
        ] {
            #expect(summary.counted.contains(test), "\(test) is counted: it passes against httpbin directly")
        }
    }
}
