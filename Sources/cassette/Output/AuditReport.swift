import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// What `cassette audit` prints: one block per finding and a summary, or one JSON object.
struct AuditReport {
    let path: String
    let interactions: Int
    /// WebSocket conversations scanned; named in the summary only when there were some.
    var conversations: Int = 0
    let findings: [AuditFinding]
    let failOn: AuditSeverity

    init(path: String, interactions: Int, conversations: Int = 0, findings: [AuditFinding], failOn: AuditSeverity) {
        self.path = path
        self.interactions = interactions
        self.conversations = conversations
        self.findings = findings
        self.failOn = failOn
    }

    var fails: Bool { findings.contains { $0.severity >= failOn } }

    func count(_ severity: AuditSeverity) -> Int { findings.filter { $0.severity == severity }.count }

    var summary: String {
        let counts = "\(count(.high)) high, \(count(.medium)) medium, \(count(.low)) low"
        let verdict = fails ? "fails --fail-on \(failOn.rawValue)" : "passes --fail-on \(failOn.rawValue)"
        var scanned = Formatting.count(interactions, "interaction")
        if conversations > 0 { scanned += " and \(Formatting.count(conversations, "WebSocket conversation"))" }
        return "\(Formatting.count(findings.count, "finding")) (\(counts)) in \(scanned) of \(path); \(verdict)"
    }

    var text: String {
        var lines: [String] = []
        for finding in findings.sorted(by: { $0.severity > $1.severity }) {
            lines.append("\(finding.severity.rawValue.uppercased())  \(finding.description): \(finding.maskedValue)")
            lines.append("  in \(finding.cassette) \(finding.key) #\(finding.sequence), \(finding.place)")
            if let entry = finding.remedy.configEntry {
                lines.append("  fix: add to cassette.json \(entry), then run `cassette redact`")
            } else if finding.place.hasPrefix("WebSocket message") {
                // Free text in a message: no rule names it, but `redact` replaces a token's shape.
                lines.append("  fix: run `cassette redact` (it replaces the token shapes audit knows in messages), or delete the conversation")
            } else {
                lines.append("  fix: no redaction rule reaches this place; redact the value where the request or response names it, or delete the recording")
            }
        }
        lines.append(summary)
        return lines.joined(separator: "\n")
    }

    func json() throws -> String {
        jsonValue.prettyJSON
    }

    /// What `--format json` prints, and the web UI's Drift view shows: every value masked.
    var jsonValue: JSONValue {
        let items: [JSONValue] = findings.map { finding in
            .object(
                JSONObject([
                    ("severity", .string(finding.severity.rawValue)),
                    ("rule", .string(finding.rule)),
                    ("description", .string(finding.description)),
                    ("cassette", .string(finding.cassette)),
                    ("key", .string(finding.key)),
                    ("sequence", .integer(Int64(finding.sequence))),
                    ("id", finding.interactionID.map { .integer($0) } ?? .null),
                    ("place", .string(finding.place)),
                    ("maskedValue", .string(finding.maskedValue)),
                    ("fix", finding.remedy.configEntry.map { .string($0) } ?? .null),
                ]))
        }
        let report: JSONValue = .object(
            JSONObject([
                ("store", .string(path)),
                ("interactions", .integer(Int64(interactions))),
                ("conversations", .integer(Int64(conversations))),
                ("failOn", .string(failOn.rawValue)),
                (
                    "counts",
                    .object(
                        JSONObject([
                            ("high", .integer(Int64(count(.high)))),
                            ("medium", .integer(Int64(count(.medium)))),
                            ("low", .integer(Int64(count(.low)))),
                        ]))
                ),
                ("findings", .array(items)),
            ]))
        return report
    }
}
