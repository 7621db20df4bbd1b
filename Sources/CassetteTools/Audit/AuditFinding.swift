import Foundation
import WellPlateCore
import WellPlateNetworking

/// How bad a finding is: `high` for credentials, `medium` for likely secrets whose shape alone
/// does not prove it, `low` for personal data.
package enum AuditSeverity: String, Sendable, Codable, Comparable, CaseIterable {
    case low, medium, high

    package static func < (lhs: AuditSeverity, rhs: AuditSeverity) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The redaction setting that would have kept a finding out of the store.
package enum AuditRemedy: Sendable, Equatable, Codable {
    case header(String)
    case queryParameter(String)
    case jsonField(String)
    /// No rule reaches this place (free text, a URL path): the value must come from a place a
    /// rule covers, so that it is scrubbed everywhere else, or the recording must be deleted.
    case none

    /// The `cassette.json` entry, as the user would write it.
    package var configEntry: String? {
        switch self {
        case .header(let name): return #""redact": {"headers": ["\#(name)"]}"#
        case .queryParameter(let name): return #""redact": {"queryParameters": ["\#(name)"]}"#
        case .jsonField(let name): return #""redact": {"jsonFields": ["\#(name)"]}"#
        case .none: return nil
        }
    }
}

/// One secret (or piece of personal data) found in a stored interaction.
package struct AuditFinding: Sendable, Equatable {
    package var cassette: String
    package var key: String
    /// The recording's position among those of its key (0 first).
    package var sequence: Int
    package var interactionID: Int64?
    /// `response body $.data.refresh_token`, `request header X-Upstream-Credential`.
    package var place: String
    /// The detector's identifier: `jwt`, `aws-access-key`, `github-token`, `keyword`, ...
    package var rule: String
    package var description: String
    package var severity: AuditSeverity
    /// The value with all but a few leading characters hidden.
    package var maskedValue: String
    package var remedy: AuditRemedy

    /// Keeps the first four characters (none for short values) and the length.
    package static func mask(_ value: String) -> String {
        let shown = value.count >= 16 ? 4 : 0
        return String(value.prefix(shown)) + String(repeating: "*", count: min(8, value.count - shown)) + " (\(value.count) chars)"
    }

    /// `text` with every found value masked in each form it may take there (raw,
    /// percent-encoded, form-encoded, JSON-escaped): how a finding shows its interaction's key,
    /// which holds the URL's path and query. The mask keeps the first four characters of a long
    /// value, like `mask`, without spaces, so the key stays one token.
    package static func masking(_ values: [String], in text: String) -> String {
        guard !values.isEmpty else { return text }
        var result = text
        let forms = values.flatMap { value in SecretValues([value]).forms.map { ($0, value) } }.sorted { $0.0.count > $1.0.count }
        for (form, value) in forms where form.count >= 3 && result.contains(form) {
            let shown = value.count >= 16 ? 4 : 0
            result = result.replacingOccurrences(of: form, with: String(value.prefix(shown)) + String(repeating: "*", count: min(8, value.count - shown)))
        }
        return result
    }
}
