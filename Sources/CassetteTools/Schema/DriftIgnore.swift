import Foundation
import WellPlateCore
import WellPlateNetworking

/// A location whose drift findings are dropped: a JSON path for every endpoint (`$.meta`,
/// `$.items[*].debug`), or for one endpoint (`GET /api/users/{id}:$.email`).
///
/// The path covers everything inside it, as in `SchemaDiff`; `$` covers the whole endpoint, its
/// "no fixture" and "no recording" notes included. A scoped pattern names the endpoint by method
/// and path pattern; parameter names do not matter (`{id}` and `{userId}` are the same endpoint).
package struct DriftIgnore: Sendable, Hashable, CustomStringConvertible {
    /// The endpoint the pattern is limited to, or `nil` for every endpoint.
    package let method: HTTPMethod?
    package let pattern: PathPattern?
    package let path: JSONPath

    /// A pattern for every endpoint.
    package init(path: JSONPath) {
        method = nil
        pattern = nil
        self.path = path
    }

    /// A pattern for the one endpoint `method pattern`.
    package init(method: HTTPMethod, pattern: PathPattern, path: JSONPath) {
        self.method = method
        self.pattern = pattern
        self.path = path
    }

    /// Parses `$.path`, or `METHOD /pattern:$.path` for one endpoint.
    /// - Throws: `DriftIgnoreError` saying what is wrong and how it should look.
    package init(_ text: String) throws(DriftIgnoreError) {
        func failure(_ problem: String) -> DriftIgnoreError {
            DriftIgnoreError(text: text, problem: problem)
        }
        func parsePath(_ pathText: String) throws(DriftIgnoreError) -> JSONPath {
            do {
                return try JSONPath(pathText)
            } catch {
                throw failure(error.description)
            }
        }
        if text.hasPrefix("$") {
            self.init(path: try parsePath(text))
            return
        }
        guard let separator = text.range(of: ":$") else {
            throw failure("expected a JSON path such as $.items[*].price, or an endpoint and a path such as 'GET /api/users/{id}:$.email'")
        }
        let endpointText = text[..<separator.lowerBound]
        let parts = endpointText.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else {
            throw failure("the endpoint \"\(endpointText)\" needs a method and a path pattern, as in 'GET /api/users/{id}:$.email'")
        }
        guard let method = HTTPMethod(token: String(parts[0])) else {
            throw failure("\"\(parts[0])\" is not a method (accepted: \(HTTPMethod.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let pattern: PathPattern
        do {
            pattern = try PathPattern(parts[1].trimmingCharacters(in: .whitespaces))
        } catch {
            throw failure(error.problem)
        }
        self.init(method: method, pattern: pattern, path: try parsePath(String(text[text.index(after: separator.lowerBound)...])))
    }

    /// Whether the pattern is limited to one endpoint.
    package var isScoped: Bool { method != nil }

    /// Whether the pattern applies to findings about `endpoint` (`nil`: a fixture that matched no
    /// endpoint, which only unscoped patterns cover).
    package func applies(to endpoint: Endpoint?) -> Bool {
        guard let method, let pattern else { return true }
        guard let endpoint, endpoint.method == method, let other = try? PathPattern(endpoint.pattern) else { return false }
        return other.shape == pattern.shape
    }

    /// Whether the pattern drops `finding` about `endpoint`.
    package func drops(_ finding: SchemaFinding, of endpoint: Endpoint?) -> Bool {
        applies(to: endpoint) && path.matches(finding.path)
    }

    /// The written form: `$.meta` or `GET /api/users/{id}:$.email`.
    package var description: String {
        guard let method, let pattern else { return path.description }
        return "\(method.rawValue) \(pattern.text):\(path)"
    }
}

/// An ignore pattern that cannot be parsed.
package struct DriftIgnoreError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The pattern as given.
    package var text: String
    /// What is wrong and how it should look.
    package var problem: String

    package init(text: String, problem: String) {
        self.text = text
        self.problem = problem
    }

    package var description: String {
        "invalid ignore pattern \(JSONValue.string(text).compactJSON): \(problem)"
    }

    package var errorDescription: String? { description }
}
