/// Parses JSON text (RFC 8259) into `CanonicalJSONValue` and writes it back in canonical form.
enum CanonicalJSON {
    /// Deeper documents are treated as not JSON (hashed raw) instead of risking the stack.
    static let maximumDepth = 256

    struct SyntaxError: Error {}

    /// The parsed value, or `nil` when `bytes` is not one complete JSON text.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, ignoring: Set<String> = []) -> CanonicalJSONValue? {
        var parser = Parser(bytes: bytes, ignoring: ignoring)
        return try? parser.parseDocument()
    }

    static func parse(_ text: String) -> CanonicalJSONValue? {
        var copy = text
        return copy.withUTF8 { parse($0) }
    }

    /// The canonical text: no insignificant whitespace, sorted keys, `/` and non-ASCII unescaped,
    /// control characters escaped.
    static func serialize(_ value: CanonicalJSONValue) -> [UInt8] {
        var output = [UInt8]()
        write(value, to: &output)
        return output
    }

    static func write(_ value: CanonicalJSONValue, to output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ text: String, to output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
            case 0x08: output.append(contentsOf: "\\b".utf8)
            case 0x0C: output.append(contentsOf: "\\f".utf8)
            case 0x0A: output.append(contentsOf: "\\n".utf8)
            case 0x0D: output.append(contentsOf: "\\r".utf8)
            case 0x09: output.append(contentsOf: "\\t".utf8)
            case 0x00..<0x20:
                output.append(contentsOf: "\\u00".utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0f)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Exact decimal canonical form of a JSON number's digits: `1.0`, `1`, `10e-1` and `0.1e1` all
    /// become `1`; `-0` becomes `0`. Formatted like JavaScript's `Number#toString` (plain digits
    /// from 1e-6 up to 1e21, exponent notation outside), but without rounding to a double.
    static func canonicalNumber(negative: Bool, digits: [UInt8], exponent: Int) -> String {
        let zero = UInt8(ascii: "0")
        guard let first = digits.firstIndex(where: { $0 != zero }) else { return "0" }
        var last = digits.count - 1
        while digits[last] == zero { last -= 1 }
        let significant = digits[first...last]
        let scale = exponent + (digits.count - 1 - last)
        let count = significant.count
        let point = count + scale
        var output = [UInt8]()
        if negative { output.append(UInt8(ascii: "-")) }
        if scale >= 0, point <= 21 {
            output.append(contentsOf: significant)
            output.append(contentsOf: repeatElement(zero, count: scale))
        } else if scale < 0, point > 0 {
            output.append(contentsOf: significant.prefix(point))
            output.append(UInt8(ascii: "."))
            output.append(contentsOf: significant.dropFirst(point))
        } else if point <= 0, point > -6 {
            output.append(contentsOf: "0.".utf8)
            output.append(contentsOf: repeatElement(zero, count: -point))
            output.append(contentsOf: significant)
        } else {
            output.append(significant.first!)
            if count > 1 {
                output.append(UInt8(ascii: "."))
                output.append(contentsOf: significant.dropFirst())
            }
            output.append(UInt8(ascii: "e"))
            output.append(contentsOf: String(point - 1).utf8)
        }
        return String(decoding: output, as: UTF8.self)
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        let ignoring: Set<String>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>, ignoring: Set<String>) {
            self.bytes = bytes
            self.ignoring = ignoring
            // A UTF-8 byte order mark is allowed to be skipped (RFC 8259 §8.1).
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        }

        mutating func parseDocument() throws(SyntaxError) -> CanonicalJSONValue {
            let value = try parseValue(depth: 0)
            skipWhitespace()
            guard index == bytes.count else { throw SyntaxError() }
            return value
        }

        private mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        private mutating func parseValue(depth: Int) throws(SyntaxError) -> CanonicalJSONValue {
            guard depth < CanonicalJSON.maximumDepth else { throw SyntaxError() }
            skipWhitespace()
            guard index < bytes.count else { throw SyntaxError() }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try parseObject(depth: depth)
            case UInt8(ascii: "["): return try parseArray(depth: depth)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "n"): try expect("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw SyntaxError()
            }
        }

        private mutating func expect(_ literal: StaticString) throws(SyntaxError) {
            let count = literal.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw SyntaxError() }
            let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
            for offset in 0..<count where bytes[index + offset] != expected[offset] { throw SyntaxError() }
            index += count
        }

        private mutating func parseObject(depth: Int) throws(SyntaxError) -> CanonicalJSONValue {
            index += 1
            var members = [CanonicalJSONValue.Member]()
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object([])
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw SyntaxError() }
                let key = try parseString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw SyntaxError() }
                index += 1
                let value = try parseValue(depth: depth + 1)
                if ignoring.isEmpty || !ignoring.contains(key.lowercased()) {
                    members.append(CanonicalJSONValue.Member(key: key, value: value))
                }
                skipWhitespace()
                guard index < bytes.count else { throw SyntaxError() }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    break
                } else {
                    throw SyntaxError()
                }
            }
            return .object(Self.sortedKeepingLastDuplicate(members))
        }

        private static func sortedKeepingLastDuplicate(_ members: [CanonicalJSONValue.Member]) -> [CanonicalJSONValue.Member] {
            guard members.count > 1 else { return members }
            let order = members.indices.sorted { lhs, rhs in
                let left = members[lhs].key.utf8, right = members[rhs].key.utf8
                if left.elementsEqual(right) { return lhs < rhs }
                return left.lexicographicallyPrecedes(right)
            }
            var result = [CanonicalJSONValue.Member]()
            result.reserveCapacity(members.count)
            for position in order {
                let member = members[position]
                if let previous = result.last, previous.key.utf8.elementsEqual(member.key.utf8) {
                    result[result.count - 1] = member
                } else {
                    result.append(member)
                }
            }
            return result
        }

        private mutating func parseArray(depth: Int) throws(SyntaxError) -> CanonicalJSONValue {
            index += 1
            var elements = [CanonicalJSONValue]()
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array([])
            }
            while true {
                elements.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw SyntaxError() }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                } else {
                    throw SyntaxError()
                }
            }
        }

        private mutating func parseNumber() throws(SyntaxError) -> CanonicalJSONValue {
            let zero = UInt8(ascii: "0")
            var negative = false
            if bytes[index] == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            var digits = [UInt8]()
            guard index < bytes.count, isDigit(bytes[index]) else { throw SyntaxError() }
            if bytes[index] == zero {
                digits.append(zero)
                index += 1
            } else {
                while index < bytes.count, isDigit(bytes[index]) { digits.append(bytes[index]); index += 1 }
            }
            var fractionDigits = 0
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw SyntaxError() }
                while index < bytes.count, isDigit(bytes[index]) {
                    digits.append(bytes[index])
                    fractionDigits += 1
                    index += 1
                }
            }
            var exponent = 0
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                var exponentNegative = false
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    exponentNegative = bytes[index] == UInt8(ascii: "-")
                    index += 1
                }
                guard index < bytes.count, isDigit(bytes[index]) else { throw SyntaxError() }
                while index < bytes.count, isDigit(bytes[index]) {
                    exponent = exponent * 10 + Int(bytes[index] - zero)
                    // Beyond any real payload; refusing keeps the arithmetic from overflowing.
                    guard exponent < 1_000_000_000 else { throw SyntaxError() }
                    index += 1
                }
                if exponentNegative { exponent = -exponent }
            }
            return .number(CanonicalJSON.canonicalNumber(
                negative: negative, digits: digits, exponent: exponent - fractionDigits
            ))
        }

        @inline(__always)
        private func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }

        private mutating func parseString() throws(SyntaxError) -> String {
            index += 1
            let start = index
            // Fast path: no escapes, so the text is the bytes themselves once validated.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw SyntaxError() }
                if byte < 0x80 { index += 1 } else { try skipMultibyteSequence() }
            }
            var decoded = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(decoding: decoded, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    try appendEscape(to: &decoded)
                case 0x00..<0x20:
                    throw SyntaxError()
                case 0x20..<0x80:
                    decoded.append(byte)
                    index += 1
                default:
                    let sequenceStart = index
                    try skipMultibyteSequence()
                    decoded.append(contentsOf: bytes[sequenceStart..<index])
                }
            }
            throw SyntaxError()
        }

        private mutating func appendEscape(to decoded: inout [UInt8]) throws(SyntaxError) {
            index += 1
            guard index < bytes.count else { throw SyntaxError() }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(try hexQuad())
                if (0xD800..<0xDC00).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw SyntaxError()
                    }
                    index += 2
                    let low = UInt32(try hexQuad())
                    guard (0xDC00..<0xE000).contains(low) else { throw SyntaxError() }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw SyntaxError()
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw SyntaxError() }
                decoded.append(contentsOf: unicode.utf8)
            default:
                throw SyntaxError()
            }
        }

        private mutating func hexQuad() throws(SyntaxError) -> UInt16 {
            guard index + 4 <= bytes.count else { throw SyntaxError() }
            var value: UInt16 = 0
            for _ in 0..<4 {
                guard let digit = PercentEncoding.hexValue(bytes[index]) else { throw SyntaxError() }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }

        /// Steps over one well-formed UTF-8 sequence starting at a byte >= 0x80 (RFC 3629 table),
        /// so invalid text is "not JSON" rather than silently repaired.
        private mutating func skipMultibyteSequence() throws(SyntaxError) {
            let lead = bytes[index]
            let continuationCount: Int
            var secondRange: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: continuationCount = 1
            case 0xE0: continuationCount = 2; secondRange = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: continuationCount = 2
            case 0xED: continuationCount = 2; secondRange = 0x80...0x9F
            case 0xF0: continuationCount = 3; secondRange = 0x90...0xBF
            case 0xF1...0xF3: continuationCount = 3
            case 0xF4: continuationCount = 3; secondRange = 0x80...0x8F
            default: throw SyntaxError()
            }
            guard index + continuationCount < bytes.count else { throw SyntaxError() }
            guard secondRange.contains(bytes[index + 1]) else { throw SyntaxError() }
            for offset in stride(from: 2, through: continuationCount, by: 1) where !(0x80...0xBF).contains(bytes[index + offset]) {
                throw SyntaxError()
            }
            index += continuationCount + 1
        }
    }
}
