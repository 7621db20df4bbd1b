import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

@Suite("Secret audit")
struct SecretAuditTests {
    let audit = SecretAudit()

    @Test(arguments: SecretCorpus.secrets().map { ($0.name, $0) })
    func findsEachSecretWhereItIs(name: String, secret: SecretCorpus.Case) throws {
        let findings = audit.findings(in: secret.interaction)
        let finding = try #require(
            findings.first { $0.rule == secret.rule && $0.place == secret.place }, "\(name): \(findings.map { "\($0.rule) @ \($0.place)" })")
        #expect(finding.severity == secret.severity, "\(name)")
        #expect(finding.maskedValue.contains("*"), "\(name)")
        #expect(finding.cassette == "dev")
        #expect(finding.key == secret.interaction.key)
    }

    @Test(arguments: SecretCorpus.ordinary().map { ($0.name, $0) })
    func leavesOrdinaryAPIDataAlone(name: String, ordinary: SecretCorpus.Case) {
        let findings = audit.findings(in: ordinary.interaction)
        #expect(findings.isEmpty, "\(name): \(findings.map { "\($0.rule) @ \($0.place): \($0.maskedValue)" })")
    }

    @Test func namesTheRedactionEntryThatWouldHaveCaughtIt() throws {
        let findings = SecretCorpus.secrets().flatMap { audit.findings(in: $0.interaction) }
        let header = try #require(findings.first { $0.place == "request header X-Upstream-Credential" })
        #expect(header.remedy.configEntry == #""redact": {"headers": ["X-Upstream-Credential"]}"#)
        let field = try #require(findings.first { $0.place == "response body $.data.refresh_token" })
        #expect(field.remedy.configEntry == #""redact": {"jsonFields": ["refresh_token"]}"#)
        let query = try #require(findings.first { $0.place == "request query parameter private_token" })
        #expect(query.remedy.configEntry == #""redact": {"queryParameters": ["private_token"]}"#)
    }

    @Test func aValueEchoedElsewhereGetsTheRuleOfItsSecretPlace() {
        var generator = SecretCorpus.Generator(state: 5)
        let token = "ghp_" + generator.string(36)
        let echoed = Recordings.make(
            .get, "/api/echo", requestHeaders: [HTTPField.Name("X-Upstream-Credential")!: token],
            body: Data(#"{"headers": [["X-Upstream-Credential", "\#(token)"]]}"#.utf8))
        let findings = audit.findings(in: echoed)
        #expect(findings.map(\.place) == ["request header X-Upstream-Credential", "response body $.headers[0][1]"])
        #expect(findings.allSatisfy { $0.remedy == .header("X-Upstream-Credential") })
    }

    @Test func masksKeepOnlyAPrefixAndTheLength() {
        #expect(AuditFinding.mask("ghp_abcdefghijklmnopqrstuvwxyz0123456789") == "ghp_******** (40 chars)")
        #expect(AuditFinding.mask("hunter2") == "******* (7 chars)")
    }
}
