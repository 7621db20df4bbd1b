import Foundation
import HTTPTypes

extension Redactor {
    /// The stored form of a secret header's value: cookie headers keep their names and
    /// attributes (and the values of cookies that are no secret, `redactsCookie`), every other
    /// secret header becomes the placeholder.
    func redactedValue(ofHeader lowercasedName: String, _ value: String) -> String {
        switch lowercasedName {
        case "cookie": return redactCookies(value)
        case "set-cookie": return redactSetCookie(value)
        default: return Self.placeholder
        }
    }

    /// This redactor, replacing every cookie value (`cassette record --redact-all-cookies`).
    package var redactingAllCookies: Redactor {
        var redactor = self
        redactor.cookies = .all
        return redactor
    }

    /// Whether the value of cookie `name` is replaced: every one under `.all`, else those
    /// `SecretCookies` judges credentials. A value without a name (`Cookie: abc`) has nothing to
    /// judge it by and is replaced.
    package func redactsCookie(name: some StringProtocol, value: some StringProtocol) -> Bool {
        guard isEnabled else { return false }
        let unnamed = name.allSatisfy { $0 == " " }
        return cookies == .all || unnamed || SecretCookies.isSecret(name: name, value: value)
    }

    /// `sid=1; theme=dark` becomes `sid=REDACTED; theme=dark`; a part without `=` is a value alone.
    func redactCookies(_ value: String) -> String {
        value.split(separator: ";", omittingEmptySubsequences: false).map { part -> String in
            guard let equals = part.firstIndex(of: "=") else {
                let isBlank = part.trimmingCharacters(in: .whitespaces).isEmpty
                return isBlank || !redactsCookie(name: "", value: part) ? String(part) : Self.leadingSpaces(part) + Self.placeholder
            }
            guard redactsCookie(name: part[..<equals], value: part[part.index(after: equals)...]) else { return String(part) }
            return String(part[...equals]) + Self.placeholder
        }.joined(separator: ";")
    }

    /// `session=abc; Path=/; HttpOnly` becomes `session=REDACTED; Path=/; HttpOnly`; a cookie
    /// that is no secret stays as it is.
    func redactSetCookie(_ value: String) -> String {
        guard let equals = value.firstIndex(of: "=") else { return redactsCookie(name: "", value: value) ? Self.placeholder : value }
        let end = value[equals...].firstIndex(of: ";") ?? value.endIndex
        guard redactsCookie(name: value[..<equals], value: value[value.index(after: equals)..<end]) else { return value }
        return String(value[...equals]) + Self.placeholder + String(value[end...])
    }

    /// The values of the cookies a response sets that are stored redacted: a replaying client
    /// will carry the placeholder instead (`LearnedSecrets.noteSetByResponse`).
    package func redactedSetCookieValues(_ headers: HTTPFields) -> [String] {
        guard isEnabled else { return [] }
        return headers[values: .setCookie].flatMap { secretCookieValues($0, isSetCookie: true) }
    }

    /// The redacted cookie values of a `Cookie` header (every pair) or a `Set-Cookie` header
    /// (its first pair; the rest are attributes), quotes removed.
    func secretCookieValues(_ value: String, isSetCookie: Bool) -> [String] {
        let parts = value.split(separator: ";")
        return (isSetCookie ? Array(parts.prefix(1)) : parts).compactMap { part in
            let name = part.firstIndex(of: "=").map { part[..<$0] } ?? ""
            let raw = part.firstIndex(of: "=").map { part[part.index(after: $0)...] } ?? part
            guard redactsCookie(name: name, value: raw) else { return nil }
            var text = raw.trimmingCharacters(in: .whitespaces)
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            return text
        }
    }

    private static func leadingSpaces(_ part: Substring) -> String {
        String(part.prefix(while: { $0 == " " }))
    }
}
