import Foundation

/// Whether a header, parameter, cookie or JSON key names a secret.
package enum SecretNames {
    package enum Kind {
        /// Names whose value is secret whatever it looks like: passwords, secrets, API keys.
        case credential
        /// Names whose value is secret when it looks machine-made: tokens, sessions, keys.
        case token
    }

    /// detect-secrets' keyword list, plus the usual spellings of credentials in HTTP APIs.
    private static let credentialWords = [
        "password", "passwd", "pwd", "passphrase", "secret", "apikey", "authkey", "servicekey", "accountkey",
        "dbkey", "databasekey", "privkey", "privatekey", "clientkey", "dbpass", "databasepass", "keypass",
        "contraseña", "contrasena", "accesskey", "secretkey", "authorization", "credential",
    ]
    private static let tokenWords = ["token", "session", "auth", "key", "cookie", "signature", "sig", "bearer", "jwt", "sid", "otp", "nonce", "csrf", "xsrf"]

    /// Names that describe a secret rather than hold one.
    private static let describingSuffixes = [
        "type", "count", "at", "in", "expires", "expiry", "expiresin", "url", "uri", "name", "hint", "length", "format",
        "version", "kind", "scope", "scopes", "header", "prefix", "label", "path", "method", "status", "mode", "policy",
        "enabled", "required", "set", "id",
    ]

    package static func kind(of name: String) -> Kind? {
        let words = split(name)
        guard !words.isEmpty else { return nil }
        let joined = words.joined()
        if let last = words.last, words.count > 1, describingSuffixes.contains(last),
            !(last == "id" && words.dropLast().contains(where: { $0 == "session" || $0 == "sess" }))
        {
            return nil
        }
        if credentialWords.contains(where: { joined.contains($0) }) { return .credential }
        if words.contains(where: { tokenWords.contains($0) }) || joined.hasSuffix("token") || joined.hasSuffix("sessionid") { return .token }
        return nil
    }

    /// Names of passwords, which people make from words: secret however structured.
    package static func isPasswordName(_ name: String) -> Bool {
        let joined = split(name).joined()
        return ["password", "passwd", "pwd", "passphrase", "contraseña", "contrasena", "pass"].contains { joined.contains($0) }
    }

    /// `X-Upstream-Credential`, `refresh_token`, `apiKey`: lower-cased words.
    package static func split(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for character in name {
            if character.isLetter || character.isNumber {
                if character.isUppercase, previousWasLower, !current.isEmpty {
                    words.append(current)
                    current = ""
                }
                current += character.lowercased()
                previousWasLower = character.isLowercase || character.isNumber
            } else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousWasLower = false
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// Values that fill a secret-looking place without being a secret.
    package static func isPlaceholderValue(_ value: String) -> Bool {
        let lowered = value.lowercased()
        if value.isEmpty || value == Redactor.placeholder || lowered.contains(Redactor.placeholder.lowercased()) { return true }
        if ["null", "none", "true", "false", "undefined", "bearer", "basic", "xxx", "****", "changeme", "<redacted>", "[redacted]", "[filtered]", "***"]
            .contains(lowered)
        {
            return true
        }
        if value.allSatisfy({ $0 == "*" || $0 == "x" || $0 == "X" || $0 == "•" }) { return true }
        // Templates: ${TOKEN}, {{token}}, <token>
        if value.hasPrefix("${") || value.hasPrefix("{{") || (value.hasPrefix("<") && value.hasSuffix(">")) { return true }
        return false
    }
}
