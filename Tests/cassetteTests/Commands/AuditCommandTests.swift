import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

@Suite("cassette audit")
final class AuditCommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    struct Finding: Decodable {
        let severity: String
        let rule: String
        let cassette: String
        let key: String
        let sequence: Int
        let id: Int64
        let place: String
        let maskedValue: String
        let fix: String?
    }

    struct Report: Decodable {
        let interactions: Int
        let findings: [Finding]
    }

    @Test func findsAtLeastWhatDetectSecretsFindsWithoutItsFalseAlarms() async throws {
        try await ExternalTool.ensure("detect-secrets")
        let secrets = SecretCorpus.secrets()
        let ordinary = SecretCorpus.ordinary()
        let stored = try await workspace.record((secrets + ordinary).map(\.interaction))
        let isSecret = stored.indices.map { $0 < secrets.count }

        // detect-secrets on a text dump of the same interactions.
        let dump = SecretCorpus.textDump(stored)
        try workspace.write(dump.text, to: "dump.txt")
        let scan = try await ExternalTool.run(["detect-secrets", "scan", "--all-files", "dump.txt"], cwd: workspace.directory)
        #expect(scan.status == 0, "\(scan.stderr)")
        let results = try JSONSerialization.jsonObject(with: Data(scan.stdout.utf8)) as? [String: Any]
        let lines = ((results?["results"] as? [String: Any])?["dump.txt"] as? [[String: Any]] ?? []).compactMap { $0["line_number"] as? Int }
        let detectSecrets = Set(lines.map { line in dump.firstLines.lastIndex { $0 <= line } ?? 0 })

        // The audit on the store.
        let result = try await workspace.run("audit", "--format", "json")
        #expect(result.status == 1, "\(result.stderr)")
        let report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
        #expect(report.interactions == stored.count)
        let audited = Set(report.findings.compactMap { finding in stored.firstIndex { $0.id == finding.id } })

        let missed = detectSecrets.subtracting(audited).filter { isSecret[$0] }
        #expect(missed.isEmpty, "detect-secrets found secrets the audit missed in: \(missed.map { secrets[$0].name })")
        #expect(Set(secrets.indices).isSubset(of: audited), "every planted secret is found")
        let auditFalseAlarms = audited.filter { !isSecret[$0] }
        let detectSecretsFalseAlarms = detectSecrets.filter { !isSecret[$0] }
        #expect(auditFalseAlarms.isEmpty, "audit flagged ordinary data: \(auditFalseAlarms.map { ordinary[$0 - secrets.count].name })")
        #expect(auditFalseAlarms.count < detectSecretsFalseAlarms.count, "fewer false alarms than detect-secrets on ordinary API data")
        // No secret in clear anywhere in the report: URL secrets are masked in the keys too.
        let planted = stored.prefix(secrets.count).flatMap { Self.urlTokens($0.url) }
        #expect(planted.count >= 2, "the corpus has secrets in URLs")
        for output in [result.stdout, try await workspace.run("audit").stdout] {
            #expect(planted.filter { output.contains($0) } == [], "the audit printed a secret")
        }
        print(
            "audit: \(report.findings.count) findings in \(audited.count) of \(stored.count) interactions (\(secrets.count) with secrets); detect-secrets: \(lines.count) findings in \(detectSecrets.count) interactions, \(detectSecrets.filter { isSecret[$0] }.count) with secrets, \(detectSecretsFalseAlarms.count) false alarms on ordinary data"
        )
    }

    @Test func reportsPlaceMaskedValueAndFixAsTextAndHonoursFailOn() async throws {
        var generator = SecretCorpus.Generator(state: 3)
        let github = "ghp_" + generator.string(36)
        try await workspace.record([
            Recordings.make(.get, "/api/repos", requestHeaders: [HTTPField.Name("X-Upstream-Credential")!: github]),
            Recordings.make(.get, "/api/users/7", body: Data(#"{"contact": "jane.doe@example.org"}"#.utf8)),
        ])
        let text = try await workspace.run("audit")
        #expect(text.status == 1)
        #expect(text.stdout.contains("HIGH  GitHub personal access token: ghp_******** (40 chars)"))
        #expect(text.stdout.contains("in dev GET /api/repos #0, request header X-Upstream-Credential"))
        #expect(text.stdout.contains(#"fix: add to cassette.json "redact": {"headers": ["X-Upstream-Credential"]}, then run `cassette redact`"#))
        #expect(text.stdout.contains("2 findings (1 high, 0 medium, 1 low) in 2 interactions"))
        #expect(!text.stdout.contains(github) && !text.stderr.contains(github), "the audit never prints a secret")

        // The fix, then the audit passes; personal data still fails --fail-on low.
        try workspace.write(#"{"redact": {"headers": ["X-Upstream-Credential"]}}"#, to: "cassette.json")
        let redact = try await workspace.run("redact")
        #expect(redact.status == 0, "\(redact.stderr)")
        #expect(redact.stdout.contains("dev GET /api/repos #0: request headers"))
        #expect(try await workspace.run("audit").status == 0)
        #expect(try await workspace.run("audit", "--fail-on", "low").status == 1)
        #expect(try await workspace.run("audit", "--fail-on", "medium").status == 0)
    }

    @Test func inputErrorsExitWithStatus2() async throws {
        let missing = try await workspace.run("audit", "--db", "nowhere.db")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("nowhere.db does not exist"))
        try await workspace.record([Recordings.make(.get, "/api/users")])
        let unknown = try await workspace.run("audit", "--cassette", "staging")
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no cassette named 'staging'"))
        let clean = try await workspace.run("audit")
        #expect(clean.status == 0)
        #expect(clean.stdout.contains("0 findings"))
    }

    /// Path segments and query values of a URL long enough to be a secret (12 characters).
    static func urlTokens(_ url: String) -> [String] {
        let path = url.split(separator: "?").first.map { $0.split(separator: "/").map(String.init) } ?? []
        let query =
            url.split(separator: "?").dropFirst().first.map { $0.split(separator: "&").compactMap { $0.split(separator: "=").last.map(String.init) } } ?? []
        return (path + query).filter { $0.count >= 12 && !$0.contains(".") }
    }
}
