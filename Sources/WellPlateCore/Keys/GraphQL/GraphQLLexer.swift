/// Splits a GraphQL document into the tokens of the spec's lexical grammar (October 2021, §2.1):
/// punctuators, names, numbers and strings; whitespace, line terminators, commas, comments and a
/// byte order mark are ignored tokens and dropped. Only what keying needs: no parse tree.
struct GraphQLLexer {
    enum Kind: Equatable {
        case punctuator, name, number, string
    }

    struct Token {
        var kind: Kind
        /// The token's text as written (a string keeps its quotes and escapes).
        var text: Substring.UTF8View
    }

    /// Where the document stops being GraphQL, for a key that falls back to the raw text.
    struct Failure: Error, Equatable {
        var offset: Int
        var reason: String
    }

    /// The tokens of `document`, in order.
    static func tokens(of document: String) throws(Failure) -> [Token] {
        let bytes = Substring(document).utf8
        var tokens: [Token] = []
        var index = bytes.startIndex
        func offset(_ position: String.Index) -> Int { bytes.distance(from: bytes.startIndex, to: position) }
        while index < bytes.endIndex {
            let byte = bytes[index]
            let start = index
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","):
                index = bytes.index(after: index)
            case 0xEF:
                // U+FEFF, the byte order mark, is ignored like whitespace.
                let end = bytes.index(index, offsetBy: 3, limitedBy: bytes.endIndex) ?? bytes.endIndex
                guard Array(bytes[index..<end]) == [0xEF, 0xBB, 0xBF] else {
                    throw Failure(offset: offset(index), reason: "unexpected character")
                }
                index = end
            case UInt8(ascii: "#"):
                while index < bytes.endIndex, bytes[index] != 0x0A, bytes[index] != 0x0D { index = bytes.index(after: index) }
            case UInt8(ascii: "."):
                let end = bytes.index(index, offsetBy: 3, limitedBy: bytes.endIndex) ?? bytes.endIndex
                guard bytes[index..<end].elementsEqual("...".utf8) else {
                    throw Failure(offset: offset(index), reason: "a lone . (only ... is a token)")
                }
                index = end
                tokens.append(Token(kind: .punctuator, text: bytes[start..<index]))
            case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "("), UInt8(ascii: ")"),
                UInt8(ascii: ":"), UInt8(ascii: "="), UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "]"),
                UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
                index = bytes.index(after: index)
                tokens.append(Token(kind: .punctuator, text: bytes[start..<index]))
            case UInt8(ascii: "\""):
                index = try endOfString(bytes, from: index, offset: offset)
                tokens.append(Token(kind: .string, text: bytes[start..<index]))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                index = bytes.index(after: index)
                while index < bytes.endIndex, isNumberContinuation(bytes[index], after: bytes[bytes.index(before: index)]) {
                    index = bytes.index(after: index)
                }
                tokens.append(Token(kind: .number, text: bytes[start..<index]))
            default:
                guard isNameStart(byte) else { throw Failure(offset: offset(index), reason: "unexpected character") }
                index = bytes.index(after: index)
                while index < bytes.endIndex, isNameStart(bytes[index]) || isDigit(bytes[index]) { index = bytes.index(after: index) }
                tokens.append(Token(kind: .name, text: bytes[start..<index]))
            }
        }
        return tokens
    }

    /// Past the closing quote of a `"…"` string or a `"""…"""` block string starting at `start`.
    private static func endOfString(
        _ bytes: Substring.UTF8View, from start: String.Index, offset: (String.Index) -> Int
    ) throws(Failure) -> String.Index {
        let quote = UInt8(ascii: "\"")
        let tripleEnd = bytes.index(start, offsetBy: 3, limitedBy: bytes.endIndex) ?? bytes.endIndex
        if bytes[start..<tripleEnd].elementsEqual("\"\"\"".utf8) {
            var index = tripleEnd
            while index < bytes.endIndex {
                if bytes[index] == UInt8(ascii: "\\"), bytes[index...].starts(with: "\\\"\"\"".utf8) {
                    index = bytes.index(index, offsetBy: 4)
                } else if bytes[index...].starts(with: "\"\"\"".utf8) {
                    return bytes.index(index, offsetBy: 3)
                } else {
                    index = bytes.index(after: index)
                }
            }
            throw Failure(offset: offset(start), reason: "unterminated block string")
        }
        var index = bytes.index(after: start)
        while index < bytes.endIndex {
            switch bytes[index] {
            case quote: return bytes.index(after: index)
            case 0x0A, 0x0D: throw Failure(offset: offset(start), reason: "line break inside a string")
            case UInt8(ascii: "\\"):
                index = bytes.index(index, offsetBy: 2, limitedBy: bytes.endIndex) ?? bytes.endIndex
            default: index = bytes.index(after: index)
            }
        }
        throw Failure(offset: offset(start), reason: "unterminated string")
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: "_")
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Digits, a fraction's `.`, an exponent's `e`/`E` and its sign belong to a number token.
    private static func isNumberContinuation(_ byte: UInt8, after previous: UInt8) -> Bool {
        if isDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return true }
        return (byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")) && (previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E"))
    }
}
