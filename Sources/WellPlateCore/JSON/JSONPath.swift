import Foundation

/// A location in a JSON schema: `$`, `$.user.address.city`, `$.items[*].price`, `$["first name"]`.
///
/// `[*]` stands for the items of an array (schemas have no element positions). Keys that are
/// identifiers (ASCII letters, digits and `_`, not starting with a digit) use dot notation; any
/// other key uses bracket notation with a JSON string. As an ignore pattern, a path may also hold
/// `.*`, which matches any one segment (a key or `[*]`).
package struct JSONPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    package enum Segment: Sendable, Hashable {
        case key(String)
        /// The items of an array, written `[*]`.
        case items
        /// Any one segment; only meaningful in patterns. Written `.*`.
        case wildcard

        /// Wildcards, then items, then keys in code point order.
        func precedes(_ other: Segment) -> Bool {
            switch (self, other) {
            case (.key(let a), .key(let b)): a.utf8.lexicographicallyPrecedes(b.utf8)
            case (.wildcard, .wildcard), (.items, .items), (.key, _): false
            case (.wildcard, _): true
            case (.items, .key): true
            case (.items, .wildcard): false
            }
        }
    }

    package private(set) var segments: [Segment]

    package static let root = JSONPath(segments: [])

    package init(segments: [Segment]) {
        self.segments = segments
    }

    /// Parses the notation that `description` writes, plus `.*` wildcards.
    /// - Throws: `JSONPathError` naming the offending position.
    package init(_ text: String) throws(JSONPathError) {
        var parser = JSONPathParser(text)
        self.init(segments: try parser.parse())
    }

    package func appending(key: String) -> JSONPath {
        JSONPath(segments: segments + [.key(key)])
    }

    package func appendingItems() -> JSONPath {
        JSONPath(segments: segments + [.items])
    }

    /// Whether this pattern covers `path`: each of the pattern's segments equals the path's segment
    /// at the same position (a wildcard equals any) and the path may continue below, so a pattern
    /// for a field covers everything inside it.
    package func matches(_ path: JSONPath) -> Bool {
        guard segments.count <= path.segments.count else { return false }
        return zip(segments, path.segments).allSatisfy { pattern, segment in
            pattern == .wildcard || pattern == segment
        }
    }

    package var description: String {
        var text = "$"
        for segment in segments {
            switch segment {
            case .key(let key):
                if Self.isIdentifier(key) {
                    text += "." + key
                } else {
                    text += "[" + JSONValue.string(key).compactJSON + "]"
                }
            case .items:
                text += "[*]"
            case .wildcard:
                text += ".*"
            }
        }
        return text
    }

    /// Orders segment by segment, keys by code point whatever their notation, so `$["first name"]`
    /// sorts before `$.items` and a parent before its children.
    package static func < (lhs: JSONPath, rhs: JSONPath) -> Bool {
        lhs.segments.lexicographicallyPrecedes(rhs.segments) { $0.precedes($1) }
    }

    package static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return key.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
    }
}

extension JSONPath: Codable {
    /// Encoded as its written form, such as `"$.items[*].price"`.
    package init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A path that cannot be parsed, with the character position (zero-based) where it goes wrong.
package struct JSONPathError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    package var path: String
    package var position: Int
    package var reason: String

    package init(path: String, position: Int, reason: String) {
        self.path = path
        self.position = position
        self.reason = reason
    }

    package var description: String {
        "invalid JSON path \(JSONValue.string(path).compactJSON) at character \(position + 1): \(reason)"
    }

    package var errorDescription: String? { description }
}

private struct JSONPathParser {
    let text: String
    let characters: [Character]
    var index = 0

    init(_ text: String) {
        self.text = text
        characters = Array(text)
    }

    mutating func parse() throws(JSONPathError) -> [JSONPath.Segment] {
        guard characters.first == "$" else {
            throw failure("a path starts with '$', as in $.items[*].price")
        }
        index = 1
        var segments: [JSONPath.Segment] = []
        while index < characters.count {
            switch characters[index] {
            case ".":
                index += 1
                segments.append(try parseDotted())
            case "[":
                index += 1
                segments.append(try parseBracketed())
            default:
                throw failure("expected '.' or '[' before the next segment")
            }
        }
        return segments
    }

    private mutating func parseDotted() throws(JSONPathError) -> JSONPath.Segment {
        if index < characters.count, characters[index] == "*" {
            index += 1
            return .wildcard
        }
        let start = index
        while index < characters.count, characters[index] != ".", characters[index] != "[" {
            index += 1
        }
        let key = String(characters[start..<index])
        guard !key.isEmpty else {
            index = start
            throw failure("expected a key after '.'")
        }
        guard JSONPath.isIdentifier(key) else {
            index = start
            throw failure("'\(key)' is not an identifier; write it as [\(JSONValue.string(key).compactJSON)]")
        }
        return .key(key)
    }

    private mutating func parseBracketed() throws(JSONPathError) -> JSONPath.Segment {
        guard index < characters.count else {
            throw failure("expected '*' or a quoted key after '['")
        }
        if characters[index] == "*" {
            index += 1
            try expectClosingBracket()
            return .items
        }
        guard characters[index] == "\"" else {
            if characters[index].isNumber {
                throw failure("schema paths have no element positions; use [*] for the items of an array")
            }
            throw failure("expected '*' or a key in double quotes after '['")
        }
        let start = index
        index += 1
        while index < characters.count, characters[index] != "\"" {
            index += characters[index] == "\\" ? 2 : 1
        }
        guard index < characters.count else {
            index = start
            throw failure("the quoted key is not closed; add the closing '\"'")
        }
        index += 1
        let literal = String(characters[start..<index])
        guard case .string(let key)? = try? JSONValue(parsing: literal) else {
            index = start
            throw failure("the quoted key is not a valid JSON string")
        }
        try expectClosingBracket()
        return .key(key)
    }

    private mutating func expectClosingBracket() throws(JSONPathError) {
        guard index < characters.count, characters[index] == "]" else {
            throw failure("expected ']'")
        }
        index += 1
    }

    private func failure(_ reason: String) -> JSONPathError {
        JSONPathError(path: text, position: index, reason: reason)
    }
}
