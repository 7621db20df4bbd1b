import Foundation

extension JSONValue {
    /// How deeply arrays and objects may nest before parsing stops with `nestingTooDeep`. The
    /// parser recurses once per level, so the limit is what keeps hostile input from exhausting the stack.
    package static let defaultMaximumDepth = 512

    /// Parses one RFC 8259 JSON document (any value at the top level, surrounded by optional
    /// whitespace). A leading UTF-8 byte order mark is skipped. Duplicate object keys keep the first
    /// key's position and the last value, as `JSON.parse` does.
    ///
    /// - Throws: `JSONParseError` with the byte offset, line, column and reason of the first problem.
    package init(parsing data: Data, maximumDepth: Int = JSONValue.defaultMaximumDepth) throws(JSONParseError) {
        let result = data.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(buffer, maximumDepth: maximumDepth)
            }
        }
        self = try result.get()
    }

    /// Parses the UTF-8 form of `text`; see `init(parsing:maximumDepth:)` for `Data`.
    package init(parsing text: String, maximumDepth: Int = JSONValue.defaultMaximumDepth) throws(JSONParseError) {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(UnsafeRawBufferPointer(buffer), maximumDepth: maximumDepth)
            }
        }
        self = try result.get()
    }
}

/// A recursive-descent parser over raw bytes. Strings without escapes become `String`s straight from
/// the input buffer; escaped ones are decoded into one reused scratch buffer.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let raw: UnsafeRawBufferPointer
    private let maximumDepth: Int
    var position = 0
    private var depth = 0
    var scratch: [UInt8] = []

    init(_ raw: UnsafeRawBufferPointer, maximumDepth: Int) {
        self.raw = raw
        self.bytes = raw.assumingMemoryBound(to: UInt8.self)
        self.maximumDepth = maximumDepth
    }

    static func parse(_ raw: UnsafeRawBufferPointer, maximumDepth: Int) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(raw, maximumDepth: maximumDepth)
        return try parser.parseDocument()
    }

    private mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            position = 3
        }
        skipWhitespace()
        guard position < bytes.count else {
            throw error(.emptyInput, at: position, "the input is empty; expected a JSON value such as {} or []")
        }
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else {
            throw error(
                .trailingContent, at: position,
                "unexpected \(describeByte(at: position)) after the JSON value; a document holds exactly one value")
        }
        return value
    }

    // MARK: Values

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else {
            throw error(.unexpectedEndOfInput, at: position, "the input ends where a value was expected; the JSON is truncated")
        }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try parseLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try parseLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try parseLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default:
            throw error(
                .unexpectedCharacter, at: position,
                "unexpected \(describeByte(at: position)); expected a value (object, array, string, number, true, false or null)")
        }
    }

    private mutating func parseLiteral(_ literal: StaticString) throws(JSONParseError) {
        let start = position
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for (offset, byte) in expected.enumerated() {
            let index = start + offset
            guard index < bytes.count else {
                throw error(.unexpectedEndOfInput, at: index, "the input ends inside '\(literal)'; the JSON is truncated")
            }
            guard bytes[index] == byte else {
                throw error(
                    .unexpectedCharacter, at: index,
                    "unexpected \(describeByte(at: index)) in a literal; expected '\(literal)' (literals are lower case, strings need double quotes)")
            }
        }
        position = start + expected.count
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        guard depth <= maximumDepth else {
            throw error(
                .nestingTooDeep, at: position,
                "arrays and objects nest more than \(maximumDepth) levels deep; flatten the document or raise the limit")
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        position += 1
        skipWhitespace()
        var elements: [JSONValue] = []
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else {
                throw error(.unexpectedEndOfInput, at: position, "the input ends inside an array; add the missing ']'")
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "]") {
                position += 1
                break
            }
            guard byte == UInt8(ascii: ",") else {
                throw error(
                    .unexpectedCharacter, at: position,
                    "unexpected \(describeByte(at: position)) in an array; expected ',' or ']' after an element")
            }
            position += 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                throw error(.unexpectedCharacter, at: position, "trailing comma before ']'; remove the comma")
            }
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        position += 1
        skipWhitespace()
        var members: [JSONObject.Element] = []
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(JSONObject(uniqueMembers: members))
        }
        // Small objects find duplicate keys by a linear scan; larger ones switch to a dictionary
        // so that wide objects stay linear overall.
        var keyIndex: [ExactKey: Int]?
        while true {
            guard position < bytes.count else {
                throw error(.unexpectedEndOfInput, at: position, "the input ends inside an object; add the missing '}'")
            }
            guard bytes[position] == UInt8(ascii: "\"") else {
                let reason =
                    bytes[position] == UInt8(ascii: "}")
                    ? "trailing comma before '}'; remove the comma"
                    : "unexpected \(describeByte(at: position)) in an object; expected a key in double quotes"
                throw error(.unexpectedCharacter, at: position, reason)
            }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count else {
                throw error(.unexpectedEndOfInput, at: position, "the input ends after an object key; expected ':' and a value")
            }
            guard bytes[position] == UInt8(ascii: ":") else {
                throw error(
                    .unexpectedCharacter, at: position,
                    "unexpected \(describeByte(at: position)) after an object key; expected ':'")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue()

            if keyIndex == nil, members.count >= 8 {
                keyIndex = Dictionary(members.enumerated().map { (ExactKey($1.key), $0) }, uniquingKeysWith: { first, _ in first })
            }
            if keyIndex != nil {
                if let existing = keyIndex![ExactKey(key)] {
                    members[existing].value = value
                } else {
                    keyIndex![ExactKey(key)] = members.count
                    members.append((key, value))
                }
            } else if let existing = members.firstIndex(where: { JSONObject.isSameKey($0.key, key) }) {
                members[existing].value = value
            } else {
                members.append((key, value))
            }

            skipWhitespace()
            guard position < bytes.count else {
                throw error(.unexpectedEndOfInput, at: position, "the input ends inside an object; add the missing '}'")
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "}") {
                position += 1
                break
            }
            guard byte == UInt8(ascii: ",") else {
                throw error(
                    .unexpectedCharacter, at: position,
                    "unexpected \(describeByte(at: position)) in an object; expected ',' or '}' after a member")
            }
            position += 1
            skipWhitespace()
        }
        depth -= 1
        return .object(JSONObject(uniqueMembers: members))
    }

    /// An object key for the duplicate index, equal to another only byte for byte, as `JSONObject` compares keys.
    private struct ExactKey: Hashable {
        let text: String

        init(_ text: String) {
            self.text = text
        }

        static func == (lhs: ExactKey, rhs: ExactKey) -> Bool {
            JSONObject.isSameKey(lhs.text, rhs.text)
        }

        // String hashing ignores normalization: keys equal byte for byte hash alike, equivalent ones merely collide.
        func hash(into hasher: inout Hasher) {
            hasher.combine(text)
        }
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    // MARK: Errors

    func error(_ kind: JSONParseError.Kind, at offset: Int, _ reason: String) -> JSONParseError {
        JSONParseError(kind, at: offset, in: raw, reason)
    }

    /// The byte at `index` for an error message: `'x'` for printable ASCII, a name or hex code otherwise.
    func describeByte(at index: Int, quoted: Bool = true) -> String {
        guard index < bytes.count else { return "end of input" }
        let byte = bytes[index]
        switch byte {
        case 0x0A: return "line break"
        case 0x0D: return "carriage return"
        case 0x09: return "tab"
        case 0x21...0x7E:
            let character = String(UnicodeScalar(byte))
            return quoted ? "'\(character)'" : character
        default:
            if byte >= 0x80, let scalar = UTF8Validation.scalar(at: index, in: bytes) {
                return quoted ? "'\(scalar)'" : String(scalar)
            }
            return "byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
    }
}
