import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("JSON parser and writer")
struct JSONParserTests {
    struct ValueCase: Sendable, CustomTestStringConvertible {
        let json: String
        let expected: JSONValue
        var testDescription: String { json }
    }

    static let valueCases: [ValueCase] = [
        ValueCase(json: "null", expected: .null),
        ValueCase(json: "true", expected: .bool(true)),
        ValueCase(json: "false", expected: .bool(false)),
        ValueCase(json: "0", expected: .integer(0)),
        ValueCase(json: "-0", expected: .integer(0)),
        ValueCase(json: "42", expected: .integer(42)),
        ValueCase(json: "-17", expected: .integer(-17)),
        ValueCase(json: "9223372036854775807", expected: .integer(.max)),
        ValueCase(json: "-9223372036854775808", expected: .integer(.min)),
        ValueCase(json: "9223372036854775808", expected: .bigInteger("9223372036854775808")),
        ValueCase(json: "-9223372036854775809", expected: .bigInteger("-9223372036854775809")),
        ValueCase(json: "1.0", expected: .number(1.0)),
        ValueCase(json: "1.5", expected: .number(1.5)),
        ValueCase(json: "1e3", expected: .number(1000)),
        ValueCase(json: "1E+3", expected: .number(1000)),
        ValueCase(json: "-2.5e-3", expected: .number(-0.0025)),
        ValueCase(json: "0.1", expected: .number(0.1)),
        ValueCase(json: "-0.0", expected: .number(-0.0)),
        ValueCase(json: "123456789.123456789", expected: .number(123456789.123456789)),
        ValueCase(json: "1.7976931348623157e308", expected: .number(.greatestFiniteMagnitude)),
        ValueCase(json: "5e-324", expected: .number(.leastNonzeroMagnitude)),
        ValueCase(json: "1e-400", expected: .number(0)),
        ValueCase(json: "0e999999999999", expected: .number(0)),
        ValueCase(json: "\"\"", expected: .string("")),
        ValueCase(json: "\"héllo wörld\"", expected: .string("héllo wörld")),
        ValueCase(json: #""\" \\ \/ \b \f \n \r \t""#, expected: .string("\" \\ / \u{8} \u{C} \n \r \t")),
        ValueCase(json: #""\u00e9\u20AC""#, expected: .string("é€")),
        ValueCase(json: #""\ud83d\ude00 and \uD83C\uDF89""#, expected: .string("😀 and 🎉")),
        ValueCase(json: #""nul\u0000byte""#, expected: .string("nul\u{0}byte")),
        ValueCase(json: "\"😀 raw\"", expected: .string("😀 raw")),
        ValueCase(json: #""ü\n😀""#, expected: .string("ü\n😀")),
        ValueCase(json: "[]", expected: .array([])),
        ValueCase(json: "[[[]]]", expected: [[[]]]),
        ValueCase(json: "[1, 2.5, \"x\", null, true]", expected: [1, 2.5, "x", nil, true]),
        ValueCase(json: "{}", expected: .object([:])),
        ValueCase(json: " \n\t{ \"a\" : [ 1 , 2 ] ,\"b\":{}}\r\n ", expected: ["a": [1, 2], "b": .object([:])]),
        ValueCase(json: "\u{FEFF}[1]", expected: [1]),
    ]

    @Test("parses every kind of value, telling integers from fractional numbers", arguments: valueCases)
    func parsesValue(_ testCase: ValueCase) throws {
        #expect(try JSONValue(parsing: testCase.json) == testCase.expected)
    }

    @Test("keeps object keys in document order")
    func keepsKeyOrder() throws {
        let value = try JSONValue(parsing: #"{"b":1,"a":2,"c":{"z":0,"y":0}}"#)
        #expect(value.objectValue?.keys == ["b", "a", "c"])
        #expect(value["c"]?.objectValue?.keys == ["z", "y"])
    }

    @Test("a repeated key keeps its first position and its last value, in small and wide objects", arguments: [3, 20])
    func duplicateKeysLastValueWins(width: Int) throws {
        let members = (0..<width).map { "\"k\($0)\":\($0)" } + ["\"k0\":\"last\""]
        let value = try JSONValue(parsing: "{" + members.joined(separator: ",") + "}")
        let object = try #require(value.objectValue)
        #expect(object.keys == (0..<width).map { "k\($0)" })
        #expect(object["k0"] == "last")
    }

    @Test("keys that are equal only under Unicode normalization stay two members, in small and wide objects", arguments: [3, 20])
    func keysAreComparedByCodePoints(width: Int) throws {
        let others = (0..<width).map { "\"k\($0)\":\($0)" }
        let value = try JSONValue(parsing: "{" + (others + ["\"\u{E9}\":1", "\"e\u{301}\":2", "\"\u{E9}\":3"]).joined(separator: ",") + "}")
        let object = try #require(value.objectValue)
        #expect(object.keys.suffix(2).map { Array($0.utf8) } == [Array("\u{E9}".utf8), Array("e\u{301}".utf8)])
        #expect(object["\u{E9}"] == 3)
        #expect(object["e\u{301}"] == 2)
        // Equality compares keys byte for byte too: dropping the decomposed key gives a different object.
        var withoutDecomposed = object
        withoutDecomposed.removeValue(forKey: "e\u{301}")
        #expect(withoutDecomposed.count == object.count - 1)
        #expect(JSONValue.object(withoutDecomposed) != value)
    }

    @Test("object equality ignores key order, number equality does not ignore integer versus fraction")
    func equalitySemantics() throws {
        #expect(try JSONValue(parsing: #"{"a":1,"b":2}"#) == JSONValue(parsing: #"{"b":2,"a":1}"#))
        #expect(Set([try JSONValue(parsing: #"{"a":1,"b":2}"#), try JSONValue(parsing: #"{"b":2,"a":1}"#)]).count == 1)
        #expect(JSONValue.integer(1) != JSONValue.number(1.0))
    }

    @Test("fractional numbers convert to the same Double as the standard library's correctly rounded parser")
    func numbersMatchStandardLibrary() throws {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<3000 {
            let integerDigits = Int.random(in: 1...18, using: &generator)
            let fractionDigits = Int.random(in: 0...12, using: &generator)
            var literal = Bool.random(using: &generator) ? "-" : ""
            literal += String(Int.random(in: 1...9, using: &generator))
            literal += (1..<integerDigits).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            if fractionDigits > 0 || Bool.random(using: &generator) {
                literal += "." + (0..<max(1, fractionDigits)).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            }
            if Bool.random(using: &generator) {
                literal += "e" + String(Int.random(in: -330...300, using: &generator))
            }
            let reference = try #require(Double(literal))
            guard reference.isFinite else {
                let error = #expect(throws: JSONParseError.self, "\(literal)") { try JSONValue(parsing: literal) }
                #expect(error?.kind == .numberOutOfRange)
                continue
            }
            let parsed = try JSONValue(parsing: literal)
            guard case .number(let value) = parsed else {
                // No fraction and no exponent: an integer literal.
                #expect(parsed == .integer(try #require(Int64(literal))), "\(literal)")
                continue
            }
            #expect(value.bitPattern == reference.bitPattern, "\(literal)")
        }
    }

    @Test("parses a generated document to the same structure as JSONSerialization")
    func agreesWithFoundation() throws {
        var generator = SeededGenerator(seed: 7)
        let document = Self.randomValue(depth: 0, using: &generator)
        let data = document.jsonData()
        let ours = try JSONValue(parsing: data)
        #expect(ours == document)
        let foundation = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        #expect(Self.normalized(ours) == Self.normalized(foundation))
    }

    /// A tree mixing every kind of value, strings with escapes and non-ASCII, integers within 2^53
    /// (so that Foundation's numbers compare exactly).
    private static func randomValue(depth: Int, using generator: inout SeededGenerator) -> JSONValue {
        let pieces = ["a", "Z", " ", "\"", "\\", "/", "\n", "\u{1}", "é", "€", "😀", "\u{2028}", "key"]
        func randomString() -> String {
            (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
        }
        let choice = depth > 5 ? Int.random(in: 0...4, using: &generator) : Int.random(in: 0...6, using: &generator)
        switch choice {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .integer(Int64.random(in: -(1 << 53)...(1 << 53), using: &generator))
        case 3: return .number(Double.random(in: -1e6...1e6, using: &generator))
        case 4: return .string(randomString())
        case 5:
            return .array((0..<Int.random(in: 0...6, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            let members = (0..<Int.random(in: 0...12, using: &generator)).map { index in
                (randomString() + String(index), randomValue(depth: depth + 1, using: &generator))
            }
            return .object(JSONObject(members))
        }
    }

    /// A form both parsers' output reduces to: numbers as Double, objects as dictionaries.
    private indirect enum Normalized: Equatable {
        case null, bool(Bool), number(Double), string(String), array([Normalized]), object([String: Normalized])
    }

    private static func normalized(_ value: JSONValue) -> Normalized {
        switch value {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .integer, .bigInteger, .number: .number(value.doubleValue!)
        case .string(let string): .string(string)
        case .array(let elements): .array(elements.map(normalized))
        case .object(let object): .object(Dictionary(uniqueKeysWithValues: object.members.map { ($0.key, normalized($0.value)) }))
        }
    }

    private static func normalized(_ value: Any) -> Normalized {
        switch value {
        case is NSNull: return .null
        case let string as String: return .string(string)
        case let array as [Any]: return .array(array.map(normalized))
        case let object as [String: Any]: return .object(object.mapValues(normalized))
        case let number as NSNumber:
            // Foundation's booleans are NSNumbers too, told apart only by their type encoding.
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            return .number(number.doubleValue)
        default: return .string("unexpected \(type(of: value))")
        }
    }

    // MARK: Errors

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let bytes: [UInt8]
        let kind: JSONParseError.Kind
        let offset: Int
        let line: Int
        let column: Int
        let reason: String

        init(_ json: String, _ kind: JSONParseError.Kind, offset: Int, line: Int = 1, column: Int, _ reason: String) {
            self.init(bytes: Array(json.utf8), kind, offset: offset, line: line, column: column, reason)
        }

        init(bytes: [UInt8], _ kind: JSONParseError.Kind, offset: Int, line: Int = 1, column: Int, _ reason: String) {
            self.bytes = bytes
            self.kind = kind
            self.offset = offset
            self.line = line
            self.column = column
            self.reason = reason
        }

        var testDescription: String { "\(kind): \(String(decoding: bytes.prefix(40), as: UTF8.self))" }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase("", .emptyInput, offset: 0, column: 1, "the input is empty; expected a JSON value such as {} or []"),
        ErrorCase(" \n ", .emptyInput, offset: 3, line: 2, column: 2, "the input is empty; expected a JSON value such as {} or []"),
        ErrorCase("[1, 2", .unexpectedEndOfInput, offset: 5, column: 6, "the input ends inside an array; add the missing ']'"),
        ErrorCase("{\"a\":", .unexpectedEndOfInput, offset: 5, column: 6, "the input ends where a value was expected; the JSON is truncated"),
        ErrorCase("[1,]", .unexpectedCharacter, offset: 3, column: 4, "trailing comma before ']'; remove the comma"),
        ErrorCase("{\"a\":1,}", .unexpectedCharacter, offset: 7, column: 8, "trailing comma before '}'; remove the comma"),
        ErrorCase("{\"a\" 1}", .unexpectedCharacter, offset: 5, column: 6, "unexpected '1' after an object key; expected ':'"),
        ErrorCase("{a:1}", .unexpectedCharacter, offset: 1, column: 2, "unexpected 'a' in an object; expected a key in double quotes"),
        ErrorCase("[1 2]", .unexpectedCharacter, offset: 3, column: 4, "unexpected '2' in an array; expected ',' or ']' after an element"),
        ErrorCase("{\"a\":1 \"b\":2}", .unexpectedCharacter, offset: 7, column: 8, "unexpected '\"' in an object; expected ',' or '}' after a member"),
        ErrorCase("[,1]", .unexpectedCharacter, offset: 1, column: 2, "unexpected ','; expected a value (object, array, string, number, true, false or null)"),
        ErrorCase("True", .unexpectedCharacter, offset: 0, column: 1, "unexpected 'T'; expected a value (object, array, string, number, true, false or null)"),
        ErrorCase("[é]", .unexpectedCharacter, offset: 1, column: 2, "unexpected 'é'; expected a value (object, array, string, number, true, false or null)"),
        ErrorCase("tru", .unexpectedEndOfInput, offset: 3, column: 4, "the input ends inside 'true'; the JSON is truncated"),
        ErrorCase(
            "nul1", .unexpectedCharacter, offset: 3, column: 4,
            "unexpected '1' in a literal; expected 'null' (literals are lower case, strings need double quotes)"),
        ErrorCase("01", .invalidNumber, offset: 0, column: 1, "numbers cannot have leading zeros; write 7, not 07 (or quote it as a string)"),
        ErrorCase("1.", .invalidNumber, offset: 2, column: 3, "expected digits after the decimal point; write 1.0 or 1, not 1."),
        ErrorCase("1.e5", .invalidNumber, offset: 2, column: 3, "expected digits after the decimal point; write 1.0 or 1, not 1."),
        ErrorCase("[1e]", .invalidNumber, offset: 3, column: 4, "expected digits in the exponent; write 1e5 or 1e-5"),
        ErrorCase("-", .unexpectedEndOfInput, offset: 1, column: 2, "the input ends after '-'; expected digits"),
        ErrorCase("-x", .invalidNumber, offset: 1, column: 2, "unexpected 'x' after '-'; expected digits"),
        ErrorCase("[1e400]", .numberOutOfRange, offset: 1, column: 2, "the number 1e400 is too large for a 64-bit floating-point value; send it as a string"),
        ErrorCase("\"abc", .unexpectedEndOfInput, offset: 4, column: 5, "the input ends inside a string; add the closing '\"'"),
        ErrorCase(#""a\x""#, .invalidEscape, offset: 2, column: 3, #"invalid escape '\x'; valid escapes are \" \\ \/ \b \f \n \r \t and \uXXXX"#),
        ErrorCase(#""\u12G4""#, .invalidUnicodeEscape, offset: 5, column: 6, #"unexpected 'G' in a \u escape; it needs exactly four hexadecimal digits"#),
        ErrorCase(#""\u12"#, .unexpectedEndOfInput, offset: 5, column: 6, #"the input ends inside a \u escape; the JSON is truncated"#),
        ErrorCase(
            #"["ok", "\ud83d"]"#, .unpairedSurrogate, offset: 8, column: 9,
            #"\uD83D is half of a UTF-16 surrogate pair without its other half; escape the whole character as a pair"#),
        ErrorCase(
            #""\ude00""#, .unpairedSurrogate, offset: 1, column: 2,
            #"\uDE00 is half of a UTF-16 surrogate pair without its other half; escape the whole character as a pair"#),
        ErrorCase(
            #""\ud83d\u0041""#, .unpairedSurrogate, offset: 1, column: 2,
            #"\uD83D is half of a UTF-16 surrogate pair without its other half; escape the whole character as a pair"#),
        ErrorCase(
            "\"a\tb\"", .controlCharacterInString, offset: 2, column: 3, #"raw control character U+0009 in a string; escape it (for example \n or \u0009)"#),
        ErrorCase(
            "\"\\n\na\"", .controlCharacterInString, offset: 3, column: 4, #"raw control character U+000A in a string; escape it (for example \n or \u000A)"#),
        ErrorCase("[1] x", .trailingContent, offset: 4, column: 5, "unexpected 'x' after the JSON value; a document holds exactly one value"),
        ErrorCase(
            "{\"a\": 1}\n{\"b\": 2}", .trailingContent, offset: 9, line: 2, column: 1,
            "unexpected '{' after the JSON value; a document holds exactly one value"),
        ErrorCase(
            "{\n  \"name\": \"é\",\n  \"n\": 01\n}", .invalidNumber, offset: 25, line: 3, column: 8,
            "numbers cannot have leading zeros; write 7, not 07 (or quote it as a string)"),
        ErrorCase(
            "{\"é😀\": 01}", .invalidNumber, offset: 11, column: 8,
            "numbers cannot have leading zeros; write 7, not 07 (or quote it as a string)"),
        ErrorCase(bytes: [0x22, 0x61, 0xFF, 0x22], .invalidUTF8, offset: 2, column: 3, "byte 0xFF is not valid UTF-8; save the file as UTF-8"),
        ErrorCase(bytes: [0x22, 0xC0, 0xAF, 0x22], .invalidUTF8, offset: 1, column: 2, "byte 0xC0 is not valid UTF-8; save the file as UTF-8"),
        ErrorCase(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, offset: 1, column: 2, "byte 0xED is not valid UTF-8; save the file as UTF-8"),
        ErrorCase(
            bytes: [0x22, 0x5C, 0x6E, 0xC3, 0xA9, 0xFE, 0x22], .invalidUTF8, offset: 5, column: 5, "byte 0xFE is not valid UTF-8; save the file as UTF-8"),
        ErrorCase(
            String(repeating: "[", count: 513), .nestingTooDeep, offset: 512, column: 513,
            "arrays and objects nest more than 512 levels deep; flatten the document or raise the limit"),
    ]

    @Test("reports the kind, byte offset, line, column and reason of invalid JSON", arguments: errorCases)
    func reportsParseError(_ testCase: ErrorCase) {
        #expect(
            throws: JSONParseError(
                kind: testCase.kind, offset: testCase.offset, line: testCase.line,
                column: testCase.column, reason: testCase.reason)
        ) {
            try JSONValue(parsing: Data(testCase.bytes))
        }
    }

    @Test("the error's description names the position and the reason on one line")
    func errorDescription() {
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: "[1,\n 2,]") }
        #expect(error?.description == "invalid JSON at line 2, column 4 (byte 7): trailing comma before ']'; remove the comma")
    }

    @Test("nesting up to the limit parses, one more level fails, and the limit is configurable")
    func nestingLimit() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        var value = try JSONValue(parsing: deepest)
        var levels = 0
        while case .array(let elements) = value {
            levels += 1
            value = elements.first ?? .null
        }
        #expect(levels == 512)

        let objects = String(repeating: "{\"a\":", count: 3) + "1" + String(repeating: "}", count: 3)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: objects, maximumDepth: 2) }
        #expect(try JSONValue(parsing: objects, maximumDepth: 3)["a"]?["a"]?["a"] == 1)
    }

    // MARK: Writing

    struct WriteCase: Sendable, CustomTestStringConvertible {
        let json: String
        let compact: String
        var testDescription: String { json }
    }

    static let writeCases: [WriteCase] = [
        WriteCase(json: #"{"b": [1, 2.5, -0.0025, 1e20, 1.0], "a": null}"#, compact: #"{"b":[1,2.5,-0.0025,1e+20,1.0],"a":null}"#),
        WriteCase(json: "[18446744073709551616, -18446744073709551616]", compact: "[18446744073709551616,-18446744073709551616]"),
        WriteCase(json: #""\u00e9\ud83d\ude00\n\u0001\u001F/\/\"\\""#, compact: #""é😀\n\u0001\u001f//\"\\""#),
        WriteCase(json: #""\b\f\r\t""#, compact: #""\b\f\r\t""#),
        WriteCase(json: "[true, false, {}, []]", compact: "[true,false,{},[]]"),
    ]

    @Test("writes compact JSON in document order", arguments: writeCases)
    func writesCompact(_ testCase: WriteCase) throws {
        let value = try JSONValue(parsing: testCase.json)
        #expect(value.compactJSON == testCase.compact)
        #expect(value.jsonData() == Data(testCase.compact.utf8))
        #expect(try JSONValue(parsing: value.compactJSON) == value)
    }

    @Test("pretty printing sorts keys by code point and indents by two spaces")
    func writesPrettySorted() throws {
        let value = try JSONValue(parsing: #"{"é":"ü","c":[1,{"y":null,"x":true}],"b":{},"a":[],"B":0.5}"#)
        #expect(
            value.prettyJSON == """
                {
                  "B": 0.5,
                  "a": [],
                  "b": {},
                  "c": [
                    1,
                    {
                      "x": true,
                      "y": null
                    }
                  ],
                  "é": "ü"
                }
                """)
        #expect(value.jsonString(options: .sortedKeys) == #"{"B":0.5,"a":[],"b":{},"c":[1,{"x":true,"y":null}],"é":"ü"}"#)
    }

    @Test("values built in code round-trip through text, including every control character and astral scalars")
    func roundTripsBuiltValues() throws {
        let controls = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })
        let value: JSONValue = [
            "controls": .string(controls),
            "astral": "𝄞😀🎉",
            "quotes": "\"\\/",
            "numbers": [0, -1, .integer(.max), .integer(.min), 0.1, -2.5e-300, 1e300, .bigInteger("123456789012345678901234567890")],
            "nested": [["deep": [[], [:]]]],
        ]
        #expect(try JSONValue(parsing: value.compactJSON) == value)
        #expect(try JSONValue(parsing: value.prettyJSON) == value)
    }

    @Test("numbers JSON cannot express are written as null")
    func nonFiniteNumbersBecomeNull() {
        let value: JSONValue = [.number(.infinity), .number(.nan)]
        #expect(value.compactJSON == "[null,null]")
    }
}
