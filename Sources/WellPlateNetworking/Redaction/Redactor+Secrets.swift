import Foundation
import HTTPTypes

extension Redactor {
    /// Secret values are only hunted for in responses when at least this long: shorter ones
    /// (`?key=users`, `Bearer expired`) are ordinary words that a response may rightly contain.
    /// Real credentials are far longer; the structural redaction of the request covers the rest.
    static let minimumSecretLength = 8

    /// The secret values a request carries (credentials in headers, secret query and form
    /// parameters, configured JSON fields), so they can be scrubbed wherever a server repeats them,
    /// such as an echo endpoint or an error message that quotes the request.
    public func secretValues(url: URL, headerFields: HTTPFields, body: Data?) -> Set<String> {
        guard isEnabled else { return [] }
        var secrets = Set<String>()
        func add(_ value: String) {
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if trimmed.count >= Self.minimumSecretLength && trimmed != Self.placeholder { secrets.insert(trimmed) }
        }
        for field in headerFields where headerNames.contains(field.name.canonicalName) {
            add(field.value)
            // "Bearer abc", "Basic abc": the credential alone is as secret as the whole value.
            if let space = field.value.firstIndex(of: " ") {
                add(String(field.value[field.value.index(after: space)...]))
            }
        }
        if let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery {
            collectFormSecrets(query, into: add)
        }
        if let body, !body.isEmpty, let text = String(data: body, encoding: .utf8) {
            let contentType = headerFields[.contentType]?.lowercased() ?? ""
            if contentType.contains("x-www-form-urlencoded") {
                collectFormSecrets(text, into: add)
            } else if let json = try? JSONValue(parsing: body) {
                collectJSONSecrets(json, into: add)
            }
        }
        return secrets
    }

    /// Replaces every occurrence of the secrets in `data` with the placeholder, byte for byte
    /// elsewhere; returns `data` itself when nothing matched.
    public func scrub(_ data: Data, secrets: Set<String>) -> Data {
        guard isEnabled, !secrets.isEmpty, !data.isEmpty else { return data }
        var result = data
        // Longer secrets first, so a token is not half-replaced through a shorter secret inside it.
        for secret in secrets.sorted(by: { $0.utf8.count > $1.utf8.count }) {
            let needle = Data(secret.utf8)
            var searchStart = result.startIndex
            while let range = result.range(of: needle, in: searchStart..<result.endIndex) {
                result.replaceSubrange(range, with: Data(Self.placeholder.utf8))
                searchStart = range.lowerBound + Self.placeholder.utf8.count
            }
        }
        return result
    }

    /// Header values with the secrets replaced.
    public func scrub(_ fields: HTTPFields, secrets: Set<String>) -> HTTPFields {
        guard isEnabled, !secrets.isEmpty else { return fields }
        var result = fields
        for index in result.indices {
            let value = result[index].value
            let scrubbed = scrub(value, secrets: secrets)
            if scrubbed != value { result[index].value = scrubbed }
        }
        return result
    }

    private func collectFormSecrets(_ text: String, into add: (String) -> Void) {
        for pair in text.split(separator: "&") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = (String(pair[..<equals]).removingPercentEncoding ?? String(pair[..<equals])).lowercased()
            guard queryParameters.contains(name) else { continue }
            let raw = String(pair[pair.index(after: equals)...])
            add(raw)
            if let decoded = raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding { add(decoded) }
        }
    }

    private func collectJSONSecrets(_ value: JSONValue, into add: (String) -> Void) {
        switch value {
        case .object(let object):
            for (key, member) in object {
                if jsonFields.contains(key.lowercased()), case .string(let text) = member {
                    add(text)
                } else {
                    collectJSONSecrets(member, into: add)
                }
            }
        case .array(let elements):
            elements.forEach { collectJSONSecrets($0, into: add) }
        default:
            break
        }
    }
}
