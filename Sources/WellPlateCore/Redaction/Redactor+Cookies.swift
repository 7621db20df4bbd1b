import Foundation

extension Redactor {
    /// The stored form of a secret header's value: cookie headers keep their names and
    /// attributes, every other secret header becomes the placeholder.
    func redactedValue(ofHeader lowercasedName: String, _ value: String) -> String {
        switch lowercasedName {
        case "cookie": return Self.redactCookies(value)
        case "set-cookie": return Self.redactSetCookie(value)
        default: return Self.placeholder
        }
    }

    /// `a=1; b=2` becomes `a=REDACTED; b=REDACTED`; a part without `=` is a value alone.
    static func redactCookies(_ value: String) -> String {
        value.split(separator: ";", omittingEmptySubsequences: false).map { part -> String in
            guard let equals = part.firstIndex(of: "=") else {
                return part.trimmingCharacters(in: .whitespaces).isEmpty ? String(part) : leadingSpaces(part) + placeholder
            }
            return String(part[...equals]) + placeholder
        }.joined(separator: ";")
    }

    /// `session=abc; Path=/; HttpOnly` becomes `session=REDACTED; Path=/; HttpOnly`.
    static func redactSetCookie(_ value: String) -> String {
        guard let equals = value.firstIndex(of: "=") else { return placeholder }
        let end = value[equals...].firstIndex(of: ";") ?? value.endIndex
        return String(value[...equals]) + placeholder + String(value[end...])
    }

    /// The cookie values of a `Cookie` header (every pair) or a `Set-Cookie` header (its first
    /// pair; the rest are attributes), quotes removed.
    static func cookieValues(_ value: String, isSetCookie: Bool) -> [String] {
        let parts = value.split(separator: ";")
        return (isSetCookie ? Array(parts.prefix(1)) : parts).map { part in
            let raw = part.firstIndex(of: "=").map { part[part.index(after: $0)...] } ?? part
            var text = raw.trimmingCharacters(in: .whitespaces)
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            return text
        }
    }

    private static func leadingSpaces(_ part: Substring) -> String {
        String(part.prefix(while: { $0 == " " }))
    }
}
