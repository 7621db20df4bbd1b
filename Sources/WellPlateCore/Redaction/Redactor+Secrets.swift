import Foundation
import HTTPTypes

extension Redactor {
    /// The secret values a request carries, which are followed into the rest of it: secret
    /// headers (and the credential after their scheme), credential cookies (but a short one a
    /// response set, see `collectHeaderSecrets`), Basic credentials decoded (`user:password` and the password), a URL's
    /// password, secret query and form parameters, and configured JSON fields.
    /// `learned`: what responses taught, including which cookie values they set.
    package func secretValues(url: String, headerFields: HTTPFields, body: Data?, learned: LearnedSecrets? = nil) -> SecretValues {
        guard isEnabled else { return SecretValues() }
        var secrets = secretValues(headers: headerFields, learned: learned)
        // The whole userinfo, and the password alone: both are credentials.
        if let range = Self.userinfoRange(url) {
            let userinfo = String(url[range])
            for part in [userinfo] + (userinfo.firstIndex(of: ":").map { [String(userinfo[userinfo.index(after: $0)...])] } ?? []) {
                secrets.insert(part)
                secrets.insert(part.removingPercentEncoding ?? part)
            }
        }
        if let question = url.firstIndex(of: "?") {
            let query = url[url.index(after: question)...]
            collectFormSecrets(String(query.prefix(while: { $0 != "#" })), into: &secrets)
        }
        if let body, !body.isEmpty {
            secrets.formUnion(secretValues(body: body, contentType: headerFields[.contentType]))
        }
        return secrets
    }

    /// `secretValues(url:headerFields:body:)` for a `URL`.
    package func secretValues(url: URL, headerFields: HTTPFields, body: Data?) -> SecretValues {
        secretValues(url: url.absoluteString, headerFields: headerFields, body: body)
    }

    /// The values of secret headers (cookies one by one, Basic credentials decoded).
    package func secretValues(headers: HTTPFields, learned: LearnedSecrets? = nil) -> SecretValues {
        var secrets = SecretValues()
        guard isEnabled else { return secrets }
        for field in headers where isSecret(name: field.name.canonicalName, value: field.value) {
            collectHeaderSecrets(name: field.name.canonicalName, value: field.value, into: &secrets, learned: learned)
        }
        return secrets
    }

    /// Values of secret form parameters or JSON fields in a body.
    package func secretValues(body: Data, contentType: String?) -> SecretValues {
        var secrets = SecretValues()
        guard isEnabled, !body.isEmpty else { return secrets }
        let type = contentType?.lowercased() ?? ""
        if type.contains("x-www-form-urlencoded") {
            if let text = String(data: body, encoding: .utf8) { collectFormSecrets(text, into: &secrets) }
        } else if !jsonFields.isEmpty, Self.mayBeJSON(body, contentType: type) {
            _ = redact(jsonBody: body, collecting: &secrets)
        }
        return secrets
    }

    /// The values of a request's credential cookies, token-shaped or not.
    func secretCookieValues(of headers: HTTPFields) -> SecretValues {
        var secrets = SecretValues()
        for field in headers where field.name == .cookie && isSecret(name: "cookie", value: field.value) {
            for cookie in secretCookieValues(field.value, isSetCookie: false) { secrets.insert(cookie) }
        }
        return secrets
    }

    func collectHeaderSecrets(name: String, value: String, into secrets: inout SecretValues, learned: LearnedSecrets? = nil) {
        if name == "set-cookie" {
            for cookie in secretCookieValues(value, isSetCookie: true) { secrets.insert(cookie) }
            return
        }
        if name == "cookie" {
            // A cookie a recorded response set is carried on replay as the recording holds it:
            // the placeholder. Followed into the rest of the request, a short such value (`never`)
            // would also replace the same word the client wrote there itself, which it sends
            // unchanged on replay, and the request would key differently when replayed. So it is
            // followed only when it is token-shaped (it then stands elsewhere only because it was
            // copied from the cookie, and is learned). A cookie the client made up itself is sent
            // the same on replay and followed whatever its length.
            for cookie in secretCookieValues(value, isSetCookie: false)
            where LearnedSecrets.isLearnable(cookie) || learned?.wasSetByResponse(cookie) != true {
                secrets.insert(cookie)
            }
            return
        }
        secrets.insert(value)
        // "Bearer abc", "Basic abc": the credential alone is as secret as the whole value.
        guard let space = value.firstIndex(of: " ") else { return }
        let credential = value[value.index(after: space)...].trimmingCharacters(in: .whitespaces)
        secrets.insert(credential)
        if value[..<space].lowercased() == "basic", let decoded = Data(base64Encoded: credential).flatMap({ String(data: $0, encoding: .utf8) }) {
            secrets.insert(decoded)
            if let colon = decoded.firstIndex(of: ":") { secrets.insert(String(decoded[decoded.index(after: colon)...])) }
        }
    }

    func collectFormSecrets(_ text: String, into secrets: inout SecretValues) {
        for pair in text.split(separator: "&") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = (String(pair[..<equals]).removingPercentEncoding ?? String(pair[..<equals])).lowercased()
            guard queryParameters.contains(name) else { continue }
            let raw = String(pair[pair.index(after: equals)...])
            secrets.insert(raw)
            if let decoded = raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding { secrets.insert(decoded) }
        }
    }
}
