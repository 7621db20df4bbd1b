import Foundation
import HTTPTypes

/// Replaces secrets with a fixed placeholder before anything is written, printed, logged or put
/// into an error message. Redaction is deterministic, so a redacted request still matches the same
/// request on replay.
public struct Redactor: Sendable, Equatable {
    /// What every secret becomes. URL-safe, so a redacted query stays a valid query.
    public static let placeholder = "REDACTED"

    /// Lower-cased header names every redactor treats as secret (credentials, cookies, API keys).
    public static let defaultHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie",
        "x-api-key", "api-key", "apikey", "x-auth-token",
    ]
    /// Lower-cased query and form parameter names every redactor treats as secret.
    public static let defaultQueryParameters: Set<String> = [
        "api_key", "apikey", "access_token", "token", "key", "signature", "password",
        "client_secret", "refresh_token", "sig",
    ]
    /// Lower-cased JSON object keys every redactor treats as secret.
    public static let defaultJSONFields: Set<String> = [
        "password", "access_token", "refresh_token", "client_secret", "token",
    ]

    /// A redactor with the default names only.
    public static let `default` = Redactor()
    /// Leaves everything as it is; for tests of the redaction itself and for explicit opt-out.
    public static let disabled = Redactor(isEnabled: false)

    /// Whether anything is redacted; when `false`, everything passes through unchanged.
    public var isEnabled: Bool
    /// Lower-cased header names whose values are secret.
    public private(set) var headerNames: Set<String>
    /// Lower-cased query (and form body) parameter names whose values are secret.
    public private(set) var queryParameters: Set<String>
    /// Lower-cased JSON object keys whose values are secret, at any depth.
    public private(set) var jsonFields: Set<String>
    /// Which values of `Cookie` and `Set-Cookie` are replaced: by default only those of cookies
    /// that look like credentials.
    public var cookies: CookieRedaction

    /// A redactor for the default names plus the given ones, which are compared ignoring case.
    public init(
        extraHeaderNames: some Sequence<String> = [],
        extraQueryParameters: some Sequence<String> = [],
        extraJSONFields: some Sequence<String> = [],
        cookies: CookieRedaction = .secretLooking,
        isEnabled: Bool = true
    ) {
        self.isEnabled = isEnabled
        self.cookies = cookies
        headerNames = Self.defaultHeaderNames.union(extraHeaderNames.map { $0.lowercased() })
        queryParameters = Self.defaultQueryParameters.union(extraQueryParameters.map { $0.lowercased() })
        jsonFields = Self.defaultJSONFields.union(extraJSONFields.map { $0.lowercased() })
    }

    // MARK: Headers

    /// Whether values of header `name` are redacted (ignoring case); always `false` when disabled.
    public func isSecretHeader(_ name: String) -> Bool {
        isEnabled && headerNames.contains(name.lowercased())
    }

    /// Secret header values replaced by the placeholder; `Cookie` and `Set-Cookie` keep their
    /// cookie names and attributes (`session=REDACTED; Path=/; HttpOnly`), so a replayed login
    /// flow still sets and sends its cookies, and the values of cookies that are no credentials
    /// (`theme=dark`) unless `cookies` is `.all`.
    /// A header of any name whose value is Basic credentials (`Basic dXNlcjpwYXNz`) is secret too.
    public func redact(headers: HTTPFields) -> HTTPFields {
        guard isEnabled else { return headers }
        var result = headers
        for index in result.indices where isSecret(name: result[index].name.canonicalName, value: result[index].value) {
            result[index].value = redactedValue(ofHeader: result[index].name.canonicalName, result[index].value)
        }
        return result
    }

    /// Whether a header is secret: by its name, or by its value when that is Basic credentials.
    package func isSecret(name lowercasedName: String, value: String) -> Bool {
        isEnabled && (headerNames.contains(lowercasedName) || Self.isBasicCredential(value))
    }

    /// `Basic <base64 of user:password>`, the scheme in any case: what a client sends as
    /// credentials, whatever header carries it.
    package static func isBasicCredential(_ value: String) -> Bool {
        let utf8 = value.utf8.drop { $0 == UInt8(ascii: " ") }
        // Checked on every header of every request: most values end here.
        guard let first = utf8.first, first | 0x20 == UInt8(ascii: "b"), utf8.count > 6, utf8.prefix(6).map({ $0 | 0x20 }) == Array("basic ".utf8) else {
            return false
        }
        let credential = String(decoding: utf8.dropFirst(6), as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard let decoded = Data(base64Encoded: credential) else { return false }
        return decoded.contains(UInt8(ascii: ":"))
    }

    /// Dictionary form, as `APIClientProtocol` takes headers.
    public func redact(headers: [String: String]) -> [String: String] {
        guard isEnabled else { return headers }
        var result = headers
        for (key, value) in headers where isSecret(name: key.lowercased(), value: value) {
            result[key] = redactedValue(ofHeader: key.lowercased(), value)
        }
        return result
    }

    // MARK: URLs

    /// The URL with secret query values and any user-info password replaced.
    public func redactedURL(_ url: URL) -> URL {
        guard isEnabled, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var changed = false
        // The whole userinfo: a user name alone may be a token (`https://TOKEN@host/`).
        if components.user != nil || components.password != nil {
            components.percentEncodedUser = Self.placeholder
            components.password = nil
            changed = true
        }
        if let query = components.percentEncodedQuery, !query.isEmpty {
            let redacted = redact(formEncoded: query)
            if redacted != query {
                components.percentEncodedQuery = redacted
                changed = true
            }
        }
        guard changed else { return url }
        return components.url ?? url
    }

    /// `redactedURL(_:)` as a string.
    public func redact(url: URL) -> String {
        redactedURL(url).absoluteString
    }

    /// Redacts `name=value` pairs of a query string or an `application/x-www-form-urlencoded` body,
    /// keeping everything else byte for byte.
    public func redact(formEncoded text: String) -> String {
        guard isEnabled, containsSecretParameter(formEncoded: text) else { return text }
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> Substring in
            guard let equals = pair.firstIndex(of: "="), isSecretParameter(pair[..<equals]) else { return pair }
            return pair[..<equals] + "=" + Self.placeholder
        }
        return pairs.joined(separator: "&")
    }

    /// `/path?query` with secret query values replaced: for callers that hold a request target
    /// rather than a URL (a proxy), without parsing one.
    /// An absolute-form target's userinfo (`http://user:password@host/`) is replaced whole: a
    /// user name alone may be a token (`https://TOKEN@host/`).
    public func redact(target: String) -> String {
        guard isEnabled else { return target }
        let target = target.utf8.first == UInt8(ascii: "/") ? target : Self.redactingUserinfo(target)
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target }
        let query = String(target[target.index(after: question)...])
        guard containsSecretParameter(formEncoded: query) else { return target }
        return String(target[...question]) + redact(formEncoded: query)
    }

    /// `scheme://userinfo@host...` with the userinfo replaced; anything else as it is.
    static func redactingUserinfo(_ url: String) -> String {
        guard let userinfo = userinfoRange(url) else { return url }
        return url.replacingCharacters(in: userinfo, with: placeholder)
    }

    /// Where the userinfo of an absolute URL stands, if it has one.
    static func userinfoRange(_ url: String) -> Range<String.Index>? {
        guard let scheme = url.range(of: "://") else { return nil }
        let authorityEnd = url[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        guard let at = url[scheme.upperBound..<authorityEnd].lastIndex(of: "@"), at > scheme.upperBound else { return nil }
        let userinfo = scheme.upperBound..<at
        return url[userinfo] == placeholder ? nil : userinfo
    }

    /// A scan without allocations for the common case of a query without secrets.
    private func containsSecretParameter(formEncoded text: String) -> Bool {
        var remaining = Substring(text)
        while !remaining.isEmpty {
            let end = remaining.firstIndex(of: "&") ?? remaining.endIndex
            let pair = remaining[..<end]
            if let equals = pair.firstIndex(of: "="), isSecretParameter(pair[..<equals]),
                pair[pair.index(after: equals)...] != Self.placeholder
            {
                return true
            }
            remaining = end == remaining.endIndex ? remaining[end...] : remaining[remaining.index(after: end)...]
        }
        return false
    }

    private func isSecretParameter(_ rawName: Substring) -> Bool {
        if !rawName.contains("%") && !rawName.contains("+") {
            return queryParameters.contains(rawName.lowercased())
        }
        let name = (rawName.removingPercentEncoding ?? String(rawName)).replacingOccurrences(of: "+", with: " ")
        return queryParameters.contains(name.lowercased())
    }

    // MARK: Bodies

    /// Redacts configured JSON fields, and secret parameters of form bodies. Bodies without a
    /// secret come back unchanged, byte for byte.
    public func redact(body: Data, contentType: String?) -> Data {
        guard isEnabled, !body.isEmpty else { return body }
        let type = contentType?.lowercased() ?? ""
        if type.contains("application/x-www-form-urlencoded") {
            guard let text = String(data: body, encoding: .utf8) else { return body }
            let redacted = redact(formEncoded: text)
            return redacted == text ? body : Data(redacted.utf8)
        }
        guard !jsonFields.isEmpty, Self.mayBeJSON(body, contentType: type) else { return body }
        var secrets = SecretValues()
        return redact(jsonBody: body, collecting: &secrets) ?? body
    }

    package static func mayBeJSON(_ body: Data, contentType: String) -> Bool {
        if contentType.contains("json") { return true }
        if !contentType.isEmpty { return false }
        guard let first = body.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }
}
