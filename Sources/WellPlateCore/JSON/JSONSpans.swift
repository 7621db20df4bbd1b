import Foundation

/// One step of a path into a JSON document.
package enum JSONPathComponent: Sendable, Hashable {
    case key(String)
    case index(Int)

    /// `$.data.items[0].token`: the form findings and messages show.
    package static func describe(_ path: [JSONPathComponent]) -> String {
        var text = "$"
        for component in path {
            switch component {
            case .key(let key):
                if !key.isEmpty, key.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }) {
                    text += "." + key
                } else {
                    text += "[\"" + key.replacingOccurrences(of: "\"", with: "\\\"") + "\"]"
                }
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }
}

/// Where one value of a JSON document sits: its path and its exact bytes, so that a caller can
/// replace it in place and keep every other byte (key order, number spelling, whitespace, escapes).
package struct JSONSpan: Sendable {
    package enum Kind: Sendable, Equatable {
        case string(String)
        /// The number as written.
        case number(String)
        case literal
        case container
    }

    package var path: [JSONPathComponent]
    /// Byte offsets of the whole value in the document (quotes included for strings).
    package var range: Range<Int>
    package var kind: Kind
}

extension JSONSpan {
    /// Visits every value of `data` after its contents (children before their container), with
    /// its path and byte range. Returns `false`, having visited nothing useful, when `data` is
    /// not one valid JSON document.
    @discardableResult
    package static func walk(_ data: Data, maximumDepth: Int = JSONValue.defaultMaximumDepth, _ visit: (JSONSpan) -> Void) -> Bool {
        data.withUnsafeBytes { raw in
            var walker = JSONSpanWalker(parser: JSONParser(raw, maximumDepth: maximumDepth), maximumDepth: maximumDepth)
            return walker.walkDocument(visit)
        }
    }
}

/// A second pass over the shared parser that keeps offsets instead of building values.
private struct JSONSpanWalker {
    var parser: JSONParser
    let maximumDepth: Int
    var path: [JSONPathComponent] = []

    mutating func walkDocument(_ visit: (JSONSpan) -> Void) -> Bool {
        let bytes = parser.bytes
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { parser.position = 3 }
        parser.skipWhitespace()
        guard parser.position < bytes.count, (try? walkValue(visit)) != nil else { return false }
        parser.skipWhitespace()
        return parser.position == bytes.count
    }

    private struct Invalid: Error {}

    private mutating func walkValue(_ visit: (JSONSpan) -> Void) throws {
        let bytes = parser.bytes
        guard parser.position < bytes.count, path.count <= maximumDepth else { throw Invalid() }
        let start = parser.position
        let kind: JSONSpan.Kind
        switch bytes[start] {
        case UInt8(ascii: "{"):
            try walkContainer(close: UInt8(ascii: "}"), isObject: true, visit)
            kind = .container
        case UInt8(ascii: "["):
            try walkContainer(close: UInt8(ascii: "]"), isObject: false, visit)
            kind = .container
        case UInt8(ascii: "\""):
            kind = .string(try parser.parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try parser.parseNumber()
            kind = .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<parser.position]), as: UTF8.self))
        default:
            // true, false, null: letters up to the next delimiter, checked by the full parser's rules.
            var end = start
            while end < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[end]) { end += 1 }
            let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            guard word == "true" || word == "false" || word == "null" else { throw Invalid() }
            parser.position = end
            kind = .literal
        }
        visit(JSONSpan(path: path, range: start..<parser.position, kind: kind))
    }

    private mutating func walkContainer(close: UInt8, isObject: Bool, _ visit: (JSONSpan) -> Void) throws {
        let bytes = parser.bytes
        parser.position += 1
        parser.skipWhitespace()
        if parser.position < bytes.count, bytes[parser.position] == close {
            parser.position += 1
            return
        }
        var index = 0
        while true {
            if isObject {
                guard parser.position < bytes.count, bytes[parser.position] == UInt8(ascii: "\"") else { throw Invalid() }
                let key = try parser.parseString()
                parser.skipWhitespace()
                guard parser.position < bytes.count, bytes[parser.position] == UInt8(ascii: ":") else { throw Invalid() }
                parser.position += 1
                parser.skipWhitespace()
                path.append(.key(key))
            } else {
                path.append(.index(index))
            }
            try walkValue(visit)
            path.removeLast()
            index += 1
            parser.skipWhitespace()
            guard parser.position < bytes.count else { throw Invalid() }
            if bytes[parser.position] == close {
                parser.position += 1
                return
            }
            guard bytes[parser.position] == UInt8(ascii: ",") else { throw Invalid() }
            parser.position += 1
            parser.skipWhitespace()
        }
    }
}
