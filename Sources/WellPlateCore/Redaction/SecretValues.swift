import Foundation

/// Values seen in a redacted place (a secret header, cookie, query or form parameter, JSON
/// field, Basic credentials), with the encodings under which they travel, so that they can be
/// scrubbed from every other part of the same interaction.
///
/// The rule for where a value is scrubbed: a form at least `substringLength` bytes long is
/// replaced wherever it occurs; a shorter one only where it stands as a whole token, that is
/// where neither the byte before nor the byte after is a token byte (an ASCII letter or digit,
/// `_`, `-`, or any non-ASCII byte). So a four-digit PIN is scrubbed from `/pins/1234/reset` and
/// from `"pin is 1234."`, but not from `12345` or `id-1234x`.
package struct SecretValues: Sendable, Equatable {
    /// Forms this long or longer are scrubbed wherever they occur.
    package static let substringLength = 8

    /// The values as they were found (decoded).
    package private(set) var values: Set<String> = []
    /// Every form to search for: each value raw, percent-encoded, form-encoded and JSON-escaped.
    package private(set) var forms: Set<String> = []

    package init() {}

    package init(_ values: some Sequence<String>) {
        for value in values { insert(value) }
    }

    package var isEmpty: Bool { values.isEmpty }

    /// Adds a secret value and its encodings; blank values and the placeholder itself are ignored.
    package mutating func insert(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed != Redactor.placeholder, values.insert(trimmed).inserted else { return }
        forms.insert(trimmed)
        // Clients escape the minimum (RFC 3986's unreserved characters stay) or everything but
        // letters and digits, with upper- or lower-case hex.
        for allowed in [Self.unreserved, Self.alphanumerics] {
            guard let encoded = trimmed.addingPercentEncoding(withAllowedCharacters: allowed) else { continue }
            for form in [encoded, encoded.replacingOccurrences(of: "%20", with: "+")] {
                forms.insert(form)
                forms.insert(Self.lowercasedPercentEscapes(form))
            }
        }
        forms.insert(Self.jsonEscaped(trimmed))
        forms.remove(Redactor.placeholder)
    }

    package mutating func formUnion(_ other: SecretValues) {
        values.formUnion(other.values)
        forms.formUnion(other.forms)
    }

    package func union(_ other: SecretValues) -> SecretValues {
        var result = self
        result.formUnion(other)
        return result
    }

    /// The forms, longest first, so that a long secret is replaced before a shorter one inside it.
    var orderedForms: [[UInt8]] {
        forms.map { Array($0.utf8) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
    }

    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    static let alphanumerics = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    static func jsonEscaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "/": result += "\\/"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension SecretValues {
    /// `%2F` written as `%2f`: both spellings are common.
    static func lowercasedPercentEscapes(_ text: String) -> String {
        var result = ""
        var remaining = 0
        for character in text {
            if character == "%" {
                remaining = 2
                result.append(character)
            } else if remaining > 0 {
                remaining -= 1
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
