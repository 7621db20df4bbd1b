import Foundation
import WellPlateCore

/// A method and a path pattern: the unit that fixtures, mock routes and inferred schemas are kept
/// per. `GET /api/users/{id}` covers every recording of `GET /api/users/1`, `/api/users/2`, …
public struct Endpoint: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The request method.
    public let method: HTTPMethod
    /// A `MockResponseRegistry` pattern such as `/api/users/{id}`.
    public let pattern: String
    /// The GraphQL operation (`query GetUser`) of requests to a GraphQL path: one URL serves many
    /// operations, and each is an endpoint of its own. `nil` for every other request.
    public let operation: String?

    /// The GraphQL operation's name without its type (`GetUser` for `query GetUser`): what a
    /// registry route names (`MockRoute.operation`). `nil` for every other request.
    public var operationName: String? {
        operation.map { String($0[($0.firstIndex(of: " ").map($0.index(after:)) ?? $0.startIndex)...]) }
    }

    /// Whether `route` answers this endpoint: the same method and pattern, and the same GraphQL
    /// operation name (or none on both), whatever variables the route names. A persisted-only or
    /// batch endpoint has no route.
    public func isAnswered(by route: MockRoute) -> Bool {
        guard route.method == method, route.path == pattern else { return false }
        guard let operation else { return route.operation == nil }
        return !operation.hasPrefix("persisted ") && !operation.hasPrefix("batch ") && route.operation == operationName
    }

    /// An endpoint from a method and a pattern (and a GraphQL operation), taken as written.
    public init(method: HTTPMethod, pattern: String, operation: String? = nil) {
        self.method = method
        self.pattern = pattern
        self.operation = operation
    }

    /// `METHOD /pattern`, such as `GET /api/users/{id}`, followed by the operation for GraphQL
    /// (`POST /graphql query GetUser`).
    public var description: String {
        operation.map { "\(method.rawValue) \(pattern) \($0)" } ?? "\(method.rawValue) \(pattern)"
    }

    /// The fixture name harvesting gives this endpoint: the design documents' default name, with
    /// parameters written without braces (`GET /api/users/{id}` is `mock_api_users_id_get`), and
    /// a GraphQL operation's type and name after it (`mock_graphql_post_query_getuser`).
    public var fixtureName: String {
        let plain = pattern.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")
        let name = MockResponseRegistry.defaultFixtureName(for: RequestPath(percentEncodedPath: plain), method: method)
        guard let operation else { return name }
        return name + "_" + operation.lowercased().replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "+", with: "_")
    }

    /// Orders by pattern, then method, then operation.
    public static func < (lhs: Endpoint, rhs: Endpoint) -> Bool {
        (lhs.pattern, lhs.method.rawValue, lhs.operation ?? "") < (rhs.pattern, rhs.method.rawValue, rhs.operation ?? "")
    }

    /// The endpoint of a recording: `of(method:url:registry:)`, and for a request keyed by its
    /// GraphQL operation (docs/graphql.md) that operation, with `POST` whichever method carried it,
    /// as its key has. `nil` when the recorded URL does not parse.
    public static func of(recording interaction: Interaction, registry: MockResponseRegistry? = nil) -> Endpoint? {
        guard let url = URL(string: interaction.url) else { return nil }
        guard let operation = GraphQLKeyPart(inKey: interaction.key) else {
            return of(method: interaction.method, url: url, registry: registry)
        }
        // A registry route names one fixture per path; GraphQL operations share the path.
        return Endpoint(method: .post, pattern: derivePattern(RequestPath(url: url)), operation: operation.label)
    }

    /// The endpoint of a recorded request: the registry's route when one matches, otherwise a
    /// pattern derived from the path by turning id-like segments into parameters.
    public static func of(method: HTTPMethod, url: URL, registry: MockResponseRegistry? = nil) -> Endpoint {
        let path = RequestPath(url: url)
        if let match = registry?.match(path: path, method: method) {
            return Endpoint(method: method, pattern: match.pattern.text)
        }
        return Endpoint(method: method, pattern: derivePattern(path))
    }

    /// `/api/users/42/meals/7` becomes `/api/users/{id}/meals/{id2}`: segments that are numbers,
    /// UUIDs or long hexadecimal strings are ids; everything else is kept literally.
    public static func derivePattern(_ path: RequestPath) -> String {
        var count = 0
        let segments = path.segments.map { segment -> String in
            guard isIdentifier(segment) else {
                // A literal that looks like a parameter would be read as one.
                return segment.replacingOccurrences(of: "{", with: "%7B").replacingOccurrences(of: "}", with: "%7D")
            }
            count += 1
            return count == 1 ? "{id}" : "{id\(count)}"
        }
        return "/" + segments.joined(separator: "/")
    }

    /// Numbers, UUIDs (8-4-4-4-12 hex digits) and hexadecimal strings of 16 characters or more.
    public static func isIdentifier(_ segment: String) -> Bool {
        let bytes = Array(segment.utf8)
        guard !bytes.isEmpty else { return false }
        if bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        if bytes.count == 36 {
            for (index, byte) in bytes.enumerated() {
                if [8, 13, 18, 23].contains(index) {
                    guard byte == UInt8(ascii: "-") else { return false }
                } else if !isHexDigit(byte) {
                    return false
                }
            }
            return true
        }
        return bytes.count >= 16 && bytes.allSatisfy(isHexDigit) && bytes.contains { $0 >= 0x30 && $0 <= 0x39 }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
    }
}
