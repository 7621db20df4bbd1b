import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette verify`, run as the real binary against real sample API processes: one unchanged
/// since recording, one started with `--drifted` (no `email`, `id` a string).
@Suite("cassette verify")
final class VerifyCommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let targets = ["/api/health", "/api/users", "/api/users/1", "/api/users/2", "/api/users/999"]

    /// Records `targets` from a live sample API through libcurl and the recording transport.
    private func record(from baseURL: URL) async throws {
        let store = try await CassetteStore.open(path: workspace.storePath, access: .readWrite)
        let recorder = try await RecordingTransport.open(store: store, cassette: "dev", mode: .all, upstream: try CurlTransport())
        for target in Self.targets {
            _ = try await recorder.send(TransportRequest(method: .get, url: URL(string: baseURL.absoluteString + target)!))
        }
        try await store.close()
    }

    /// `"ENDPOINT PATH RULE"` for every finding of a JSON report.
    static func findings(in report: JSONValue) -> [String] {
        guard case .array(let entries)? = report["endpoints"] else { return [] }
        var lines: [String] = []
        for entry in entries {
            guard case .array(let list)? = entry["findings"] else { continue }
            for finding in list {
                lines.append("\(entry["endpoint"]?.stringValue ?? "-") \(finding["path"]?.stringValue ?? "") \(finding["rule"]?.stringValue ?? "")")
            }
        }
        return lines
    }

    private func storeBytes() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: workspace.storePath))
    }

    @Test("an API unchanged since recording: no findings, exit 0, the store untouched")
    func unchangedAPI() async throws {
        try await withSampleAPI { recordedURL in try await record(from: recordedURL) }
        let before = try storeBytes()
        try await withSampleAPI { liveURL in
            let result = try await workspace.run("verify", "--upstream", liveURL.absoluteString)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutLines.first == "sent 5 requests to \(liveURL.absoluteString) (5 answered)")
            #expect(result.stdoutLines.last == "0 errors, 0 warnings, 0 notes in 0 endpoints (3 endpoints in recording, 3 in live API)")
        }
        #expect(try storeBytes() == before)
    }

    @Test("a drifted API: a removed field, a changed type and a changed status are errors, exit 1")
    func driftedAPI() async throws {
        try await withSampleAPI { recordedURL in try await record(from: recordedURL) }
        // A recording of a user the fresh server does not have: the live API answers 404.
        let ghost = Recordings.make(
            .get, "/api/users/77",
            body: Recordings.json(#"{"id":77,"name":"Ghost","email":"g@example.com","role":"member","createdAt":"2026-01-02T09:00:00Z","avatarURL":null}"#))
        let page = Recordings.make(
            .get, "/api/users?limit=1",
            body: Recordings.json(#"[{"id":1,"name":"Ada","email":"ada@example.com","role":"admin","createdAt":"2026-01-02T09:00:00Z","avatarURL":null}]"#))
        try await workspace.record([ghost, page])
        let before = try storeBytes()
        try await withSampleAPI(arguments: ["--drifted"]) { liveURL in
            let result = try await workspace.run("verify", "--upstream", liveURL.absoluteString, "--format", "json", "--concurrency", "2")
            #expect(result.status == 1, "\(result)")
            let report = try JSONValue(parsing: Data(result.stdout.utf8))
            let findings = Self.findings(in: report)
            #expect(findings.contains("GET /api/users/{id} $.email fieldNotInAPI"), "\(findings)")
            #expect(findings.contains("GET /api/users/{id} $.id typeMismatch"), "\(findings)")
            #expect(findings.contains("GET /api/users $[*].email fieldNotInAPI"), "\(findings)")
            #expect(findings.contains("GET /api/users/{id} $ statusClassChanged"), "\(findings)")
            #expect(!findings.contains { $0.hasPrefix("GET /api/health") }, "health did not drift: \(findings)")
            // Each drifted endpoint names its requests, query and all.
            guard case .array(let entries)? = report["endpoints"] else { throw UnexpectedBody(description: result.stdout) }
            let requests = Dictionary(
                entries.compactMap { entry -> (String, [String])? in
                    guard let endpoint = entry["endpoint"]?.stringValue, case .array(let list)? = entry["requests"] else { return nil }
                    return (endpoint, list.compactMap(\.stringValue))
                }, uniquingKeysWith: { first, _ in first })
            #expect(requests["GET /api/users/{id}"] == ["GET /api/users/1", "GET /api/users/2", "GET /api/users/77"], "\(requests)")
            #expect(requests["GET /api/users"] == ["GET /api/users", "GET /api/users?limit=1"], "\(requests)")

            let text = try await workspace.run("verify", "--upstream", liveURL.absoluteString)
            #expect(text.status == 1)
            #expect(text.stdout.contains("error   $.id  type changed: recording has integer, live API sends string"), "\(text)")
            #expect(text.stdout.contains("status changed for GET /api/users/77: recording has 200, live API answers 404"), "\(text)")
            #expect(text.stdout.contains("  drifted: GET /api/users, GET /api/users?limit=1\n"), "\(text)")
        }
        #expect(try storeBytes() == before, "verify never writes the store without --update")
    }

    @Test("--update re-records the drifted endpoints; a second verify is clean")
    func update() async throws {
        try await withSampleAPI { recordedURL in try await record(from: recordedURL) }
        try await withSampleAPI(arguments: ["--drifted"]) { liveURL in
            let updated = try await workspace.run("verify", "--upstream", liveURL.absoluteString, "--update")
            #expect(updated.status == 1, "the drift found is still reported: \(updated)")
            #expect(updated.stdout.contains("--update: re-recorded 4 requests of 2 drifted endpoints into cassette dev"), "\(updated)")
            let again = try await workspace.run("verify", "--upstream", liveURL.absoluteString)
            #expect(again.status == 0, "\(again)")
        }
        let store = try await CassetteStore.open(path: workspace.storePath, access: .readOnly)
        let users = try await store.interactions(cassette: "dev").filter { $0.url.hasSuffix("/api/users/1") }
        try await store.close()
        #expect(users.count == 1)
        #expect(try JSONValue(parsing: users[0].responseBody)["id"] == "1")
    }

    @Test("--env reads the upstream from cassette.json; usage errors exit 2; --methods beyond GET/HEAD warns")
    func configurationAndUsage() async throws {
        try await withSampleAPI { recordedURL in try await record(from: recordedURL) }
        try await withSampleAPI { liveURL in
            try workspace.write(#"{"environments": {"dev": {"upstream": "\#(liveURL.absoluteString)"}}}"#, to: "cassette.json")
            let viaEnv = try await workspace.run("verify", "--env", "dev")
            #expect(viaEnv.status == 0, "\(viaEnv)")
            let widened = try await workspace.run("verify", "--env", "dev", "--methods", "GET,POST")
            #expect(widened.status == 0, "\(widened)")
            #expect(widened.stderr.contains("warning: --methods includes POST"), "\(widened)")
        }
        #expect(try await workspace.run("verify").status == 2)
        #expect(try await workspace.run("verify", "--env", "staging").status == 2)
        #expect(try await workspace.run("verify", "--upstream", "ftp://x").status == 2)
        #expect(try await workspace.run("verify", "--upstream", "http://127.0.0.1:1", "--concurrency", "0").status == 2)
        #expect(try await workspace.run("verify", "--upstream", "http://127.0.0.1:1", "--methods", "FETCH").status == 2)
        // Nothing listens on port 1: no answers is an input failure, not drift.
        let unreachable = try await workspace.run("verify", "--upstream", "http://127.0.0.1:1", "--timeout", "5")
        #expect(unreachable.status == 2, "\(unreachable)")
        #expect(unreachable.stderr.contains("5 of 5 requests got no answer"), "\(unreachable)")
    }
}
