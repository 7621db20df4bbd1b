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
        // A secret in the URL stands in the key too: masked there as in the value.
        if finding.place.hasPrefix("request URL") || finding.place.hasPrefix("request query") {
            #expect(finding.key != secret.interaction.key && finding.key.contains("****"), "\(name): \(finding.key)")
        } else {
            #expect(finding.key == secret.interaction.key)
        }
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

    /// One JSON field, audited: the severities found there.
    func severities(_ name: String, _ value: String) -> [AuditSeverity] {
        let body = #"{"\#(name)": "\#(value)"}"#
        return audit.findings(in: Recordings.make(.get, "/api/x", body: Data(body.utf8))).map(\.severity)
    }

    /// Made from a generator of its own, so each argument list is a constant.
    static func embedded(_ magic: [UInt8], seed: UInt64) -> String {
        var random = SecretCorpus.Generator(state: seed)
        return SecretCorpus.embedded(magic, &random)
    }

    static func random(_ count: Int, seed: UInt64, from alphabet: String = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") -> String {
        var random = SecretCorpus.Generator(state: seed)
        return random.string(count, from: alphabet)
    }

    /// Structured values and embedded binaries raise no high finding under any name.
    @Test(arguments: [
        ("build_key", "build:1.4.2:linux-x86_64", [AuditSeverity]()),
        ("cache_token", "v2-assets-2024-06-15", []),
        ("sessionKey", "checkout-flow:step-3:v12", []),
        ("api_key", "Staging Key For Partner", [.medium]),
        ("secret", "release/2024.06/arm64", [.medium]),
        ("avatar_token", Self.embedded([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], seed: 31), []),
        ("image", "data:image/gif;base64," + Self.embedded(Array("GIF89a".utf8), seed: 32), []),
        ("document", Self.embedded(Array("%PDF-1.4".utf8), seed: 33), []),
        ("archive_key", Self.embedded([0x50, 0x4B, 0x03, 0x04], seed: 34), []),
    ])
    func ordinaryValuesInSecretLookingPlacesAreNotHigh(name: String, value: String, expected: [AuditSeverity]) {
        #expect(severities(name, value) == expected, "\(name): \(value.prefix(40))")
    }

    /// The same names with values that are secrets: still high. A password stays high however
    /// plainly it is made of words.
    @Test(arguments: [
        ("build_key", "bk_" + Self.random(32, seed: 37)),
        ("cache_token", Self.random(40, seed: 38, from: "0123456789abcdef")),
        ("sessionKey", "550e8400-e29b-41d4-a716-446655440000"),
        ("api_key", "sk_live_" + Self.random(24, seed: 39)),
        ("password", "correct-horse-battery-staple"),
        ("secret", Self.random(20, seed: 40)),
        ("avatar_token", Self.random(64, seed: 41, from: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")),
    ])
    func secretsInTheSamePlacesAreStillHigh(name: String, value: String) {
        #expect(severities(name, value).contains(.high), "\(name): \(value)")
    }

    /// Random base64 under a name that says nothing: medium, as detect-secrets' entropy rule; the
    /// same length of an image's base64: nothing.
    @Test func highEntropyBase64IsMediumUnlessItIsAnEmbeddedFile() {
        var random = SecretCorpus.Generator(state: 5)
        let noise = Data((0..<60).map { _ in UInt8(truncatingIfNeeded: random.next()) }).base64EncodedString()
        #expect(severities("blob", noise) == [.medium])
        #expect(severities("blob", Self.embedded([0xFF, 0xD8, 0xFF, 0xE1], seed: 35)) == [])
    }
}
