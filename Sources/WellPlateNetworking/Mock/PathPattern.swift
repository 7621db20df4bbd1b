import Foundation
import WellPlateCore

/// A mock route's path: literal segments and named parameters, as in `/api/users/{id}/meals`.
///
/// A parameter is a whole segment `{name}` (name: ASCII letters, digits and `_`, not starting with
/// a digit) and matches exactly one non-empty segment of the request path. Literal segments may be
/// written with percent escapes; they are compared decoded, like the request path (`RequestPath`).
/// Two patterns that differ only in their parameter names match the same requests and count as the
/// same route.
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    /// One segment of a pattern: literal text, or a parameter that captures a request segment.
    public enum Segment: Sendable, Hashable {
        /// A decoded literal segment.
        case literal(String)
        case parameter(String)
    }

    /// The pattern as written.
    public let text: String
    /// The parsed segments, in order.
    public let segments: [Segment]

    /// Parses and validates a pattern.
    /// - Throws: `MockRegistryError` saying what is wrong and where.
    public init(_ text: String) throws(MockRegistryError) {
        self.text = text
        segments = try Self.parse(text)
    }

    /// The pattern as written.
    public var description: String { text }

    /// The parameters' names in path order.
    public var parameterNames: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// How many parameters the pattern has.
    public var parameterCount: Int { parameterNames.count }

    /// A pattern without parameters matches one path only.
    public var isExact: Bool { parameterCount == 0 }

    /// Characters of the decoded path before the first parameter (the whole path when there is
    /// none): `/api/users/{id}` has 11.
    public var literalPrefixLength: Int {
        var length = 0
        for segment in segments {
            length += 1  // the `/` before the segment
            guard case .literal(let literal) = segment else { return length }
            length += literal.count
        }
        return length
    }

    /// The pattern with parameter names erased: the identity of a route.
    package var shape: [String?] {
        segments.map { if case .literal(let literal) = $0 { literal } else { nil } }
    }

    /// The captured parameters when `path` matches, otherwise `nil`.
    public func match(_ path: RequestPath) -> [String: String]? {
        guard path.segments.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, actual) in zip(segments, path.segments) {
            switch segment {
            case .literal(let literal):
                guard literal == actual else { return nil }
            case .parameter(let name):
                guard !actual.isEmpty else { return nil }
                parameters[name] = actual
            }
        }
        return parameters
    }

    /// The precedence among patterns that match the same path: fewer parameters first, then the
    /// longer literal prefix, then segment by segment from the left a literal before a parameter
    /// and literals in Unicode code point order. The last rule only breaks ties, but it makes the
    /// order total for distinct shapes and independent of registration order.
    public func isMoreSpecific(than other: PathPattern) -> Bool {
        if parameterCount != other.parameterCount { return parameterCount < other.parameterCount }
        let prefix = literalPrefixLength, otherPrefix = other.literalPrefixLength
        if prefix != otherPrefix { return prefix > otherPrefix }
        for (lhs, rhs) in zip(segments, other.segments) {
            switch (lhs, rhs) {
            case (.literal(let a), .literal(let b)) where a != b:
                return a.utf8.lexicographicallyPrecedes(b.utf8)
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return segments.count < other.segments.count
    }

    // MARK: Parsing

    private static func parse(_ text: String) throws(MockRegistryError) -> [Segment] {
        func failure(_ problem: String) -> MockRegistryError {
            MockRegistryError(problem: "pattern \(quoted(text)) \(problem)")
        }
        guard text.hasPrefix("/") else {
            throw failure("must start with \"/\"; write it as \(quoted("/" + text))")
        }
        if let index = text.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            throw failure("contains \"\(text[index])\"; patterns match the path only (the query is ignored), so remove everything from \"\(text[index])\" on")
        }
        try checkBraces(text, failure)
        var segments: [Segment] = []
        var names: Set<String> = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard raw.contains("{") else {
                segments.append(.literal(RequestPath.percentDecoded(raw)))
                continue
            }
            guard raw.hasPrefix("{"), raw.hasSuffix("}"), raw.count >= 2 else {
                throw failure("has a parameter inside the segment \(quoted(String(raw))); a parameter must be a whole segment, as in /files/{name}")
            }
            let name = String(raw.dropFirst().dropLast())
            guard !name.isEmpty else {
                throw failure("has an empty parameter \"{}\"; name it, as in {id}")
            }
            guard JSONPath.isIdentifier(name) else {
                throw failure("has the parameter name \(quoted(name)), which is not an identifier; use letters, digits and _, not starting with a digit")
            }
            guard names.insert(name).inserted else {
                throw failure("uses the parameter {\(name)} twice; give each parameter its own name")
            }
            segments.append(.parameter(name))
        }
        return segments
    }

    private static func checkBraces(_ text: String, _ failure: (String) -> MockRegistryError) throws(MockRegistryError) {
        var open: Int?
        for (position, character) in text.enumerated() {
            switch character {
            case "{":
                if open != nil { throw failure("has a \"{\" inside a parameter at character \(position + 1); parameters cannot nest") }
                open = position
            case "}":
                if open == nil { throw failure("has a \"}\" without a matching \"{\" at character \(position + 1)") }
                open = nil
            case "/" where open != nil:
                throw failure("never closes the \"{\" at character \(open! + 1); write parameters as {name}")
            default:
                break
            }
        }
        if let open {
            throw failure("never closes the \"{\" at character \(open + 1); write parameters as {name}")
        }
    }

    static func quoted(_ text: String) -> String {
        JSONValue.string(text).compactJSON
    }
}
