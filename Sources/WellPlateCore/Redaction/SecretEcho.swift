import Foundation
import HTTPTypes

/// One `REDACTED` in a stored response that stands for a secret the recorded *request* carried in
/// a secret header or cookie (a server that echoes `Authorization`, an error quoting a cookie):
/// where it stands, and how that secret is read from a request. Replay puts the live request's
/// own value there (`Interaction.echoingSecrets(of:)`); the store never holds the value, only
/// this description of its place.
package struct SecretEcho: Sendable, Hashable {
    /// Which part of the response holds the placeholder.
    package enum Part: Sendable, Hashable {
        case body
        /// The `occurrence`-th field (from 0) named `name` (lower-cased).
        case header(String, occurrence: Int)
    }

    /// Where the request carried the secret.
    package enum Source: Sendable, Hashable {
        /// A secret header, by its lower-cased name.
        case header(String)
        /// A cookie of the `Cookie` header, by its name.
        case cookie(String)
    }

    /// Which value of the source the response repeated.
    package enum Derivation: String, Sendable, CaseIterable {
        /// The field's value, or the cookie's.
        case whole
        /// What follows the scheme: `abc` of `Bearer abc`.
        case credential
        /// Basic credentials decoded: `user:password`.
        case basic
        /// The password of Basic credentials.
        case password
    }

    /// How the response spelled it (`SecretValues` searches each of these forms).
    package enum Encoding: String, Sendable, CaseIterable {
        case raw, json
        /// Percent-encoded, RFC 3986's unreserved characters kept; `plus`: spaces as `+`;
        /// `lower`: lower-case hex.
        case unreserved, unreservedPlus, unreservedLower, unreservedPlusLower
        /// Percent-encoded, only letters and digits kept.
        case alphanumeric, alphanumericPlus, alphanumericLower, alphanumericPlusLower
    }

    package var part: Part
    /// Byte offset of the placeholder in the body or in the header's value.
    package var offset: Int
    package var source: Source
    package var derivation: Derivation
    package var encoding: Encoding

    package init(part: Part, offset: Int, source: Source, derivation: Derivation, encoding: Encoding) {
        self.part = part
        self.offset = offset
        self.source = source
        self.derivation = derivation
        self.encoding = encoding
    }

    /// Where the secret came from and how it was spelled, without its place in the response.
    package struct Origin: Sendable, Hashable {
        package var source: Source
        package var derivation: Derivation
        package var encoding: Encoding
    }

    package var origin: Origin {
        Origin(source: source, derivation: derivation, encoding: encoding)
    }
}

// MARK: Reading a secret from a request

extension SecretEcho.Origin {
    /// The value this origin names in a request's headers, spelled as the response spelled it;
    /// `nil` when the request does not carry it.
    package func value(in fields: HTTPFields) -> String? {
        let carried: String?
        switch source {
        case .header(let name):
            carried = HTTPField.Name(name).flatMap { fields[$0] }
        case .cookie(let name):
            carried = fields[values: .cookie].lazy.compactMap { SecretEcho.cookie(named: name, in: $0) }.first
        }
        guard let carried, let derived = derivation.apply(to: carried) else { return nil }
        return encoding.apply(to: derived)
    }
}

extension SecretEcho.Derivation {
    /// This derivation of a carried value, trimmed as `SecretValues` trims it; `nil` when it has none.
    package func apply(to value: String) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        let result: String?
        switch self {
        case .whole:
            result = trimmed
        case .credential, .basic, .password:
            guard let space = trimmed.firstIndex(of: " ") else { return nil }
            let credential = trimmed[trimmed.index(after: space)...].trimmingCharacters(in: .whitespaces)
            if self == .credential {
                result = credential
                break
            }
            guard trimmed[..<space].lowercased() == "basic", let decoded = Data(base64Encoded: credential).flatMap({ String(data: $0, encoding: .utf8) })
            else { return nil }
            if self == .basic {
                result = decoded
            } else {
                result = decoded.firstIndex(of: ":").map { String(decoded[decoded.index(after: $0)...]) }
            }
        }
        guard let result else { return nil }
        let value = result.trimmingCharacters(in: .whitespaces)
        return value.isEmpty ? nil : value
    }
}

extension SecretEcho.Encoding {
    /// `value` spelled this way (the same spellings `SecretValues.insert` searches for).
    package func apply(to value: String) -> String? {
        switch self {
        case .raw: return value
        case .json: return SecretValues.jsonEscaped(value)
        case .unreserved, .unreservedPlus, .unreservedLower, .unreservedPlusLower:
            return spelled(value.addingPercentEncoding(withAllowedCharacters: SecretValues.unreserved))
        case .alphanumeric, .alphanumericPlus, .alphanumericLower, .alphanumericPlusLower:
            return spelled(value.addingPercentEncoding(withAllowedCharacters: SecretValues.alphanumerics))
        }
    }

    private func spelled(_ encoded: String?) -> String? {
        guard var encoded else { return nil }
        switch self {
        case .unreservedPlus, .unreservedPlusLower, .alphanumericPlus, .alphanumericPlusLower:
            encoded = encoded.replacingOccurrences(of: "%20", with: "+")
        default: break
        }
        switch self {
        case .unreservedLower, .unreservedPlusLower, .alphanumericLower, .alphanumericPlusLower:
            encoded = SecretValues.lowercasedPercentEscapes(encoded)
        default: break
        }
        return encoded
    }
}

extension SecretEcho {
    /// The value of cookie `name` in a `Cookie` header (quotes removed), if it is there.
    static func cookie(named name: String, in header: String) -> String? {
        for part in header.split(separator: ";") {
            guard let equals = part.firstIndex(of: "=") else { continue }
            guard part[..<equals].trimmingCharacters(in: .whitespaces) == name else { continue }
            var value = part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }
}
