import Foundation

/// Which cookies hold secrets: the judgement the redactor applies to `Cookie` and `Set-Cookie`
/// and the audit applies to what is stored, so the two never disagree.
///
/// A session id is a credential; `theme=dark` is not, and a client that sets a cookie and reads it
/// back (`stale_after=never`) must find it on replay as it was. So a cookie is secret when its name
/// says so (`SecretNames`, plus the words session cookies are named with) or its value looks
/// machine-made (the audit's rule for a value under a token-like name); every other cookie is kept.
package enum SecretCookies {
    /// Words of cookie names that mark a credential whatever the value looks like, beyond the
    /// ones `SecretNames` knows: frameworks name their session cookies with them.
    private static let cookieWords = ["sess", "remember", "login", "identity", "logged"]
    /// Short words that name a credential only as a word of their own (`pin`, not `spinner`).
    private static let cookieWholeWords: Set<String> = ["sid", "pin", "otp", "passcode"]
    /// Words that name any cookie, so none of them marks a credential.
    private static let cookieOwnWords: Set<String> = ["cookie", "cookies"]

    /// Whether the cookie `name=value` is redacted under `CookieRedaction.secretLooking`.
    package static func isSecret(name: some StringProtocol, value: some StringProtocol) -> Bool {
        let value = unquoted(value.trimmingCharacters(in: .whitespaces))
        guard !value.isEmpty, value != Redactor.placeholder else { return false }
        return isSecretName(name.trimmingCharacters(in: .whitespaces)) || looksMachineMade(value)
    }

    /// `PHPSESSID`, `connect.sid`, `remember_token`, `csrftoken`, `auth`: a name that says the
    /// value is a credential.
    package static func isSecretName(_ name: String) -> Bool {
        // Every cookie is a cookie: the word says nothing of one (`cookie=value`, a test
        // client's favourite, was redacted and read back as `REDACTED`), unlike the same word
        // in a header or parameter name, where `SecretNames` counts it.
        let words = SecretNames.split(name).filter { !cookieOwnWords.contains($0) }
        guard !words.isEmpty else { return false }
        if SecretNames.kind(of: words.joined(separator: "_")) != nil { return true }
        let joined = words.joined()
        return cookieWords.contains { joined.contains($0) } || words.contains(where: cookieWholeWords.contains) || joined.hasSuffix("sid")
    }

    /// A value no person wrote: random-looking letters and digits (`Entropy.looksRandom`) that are
    /// not words and numbers joined by separators, or high-entropy base64 (a signed cookie).
    package static func looksMachineMade(_ value: String) -> Bool {
        (Entropy.looksRandom(value) && !ValueShapes.isPlainlyStructured(value)) || Entropy.isHighEntropyBase64(value)
    }

    private static func unquoted(_ text: String) -> String {
        text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") ? String(text.dropFirst().dropLast()) : text
    }
}

/// Which cookie values the redactor replaces (`"redact": {"cookies": ...}` in cassette.json,
/// `cassette record --redact-all-cookies`).
public enum CookieRedaction: String, Sendable, Equatable, CaseIterable {
    /// The values of cookies whose name or value marks them as credentials (`SecretCookies`);
    /// others, such as `theme=dark`, are kept so a client reads back what it set.
    case secretLooking = "secret-looking"
    /// Every cookie value, whatever its name.
    case all
}
