// Strings: the fast path slices the input, escapes decode into the parser's scratch buffer.

extension JSONParser {
    /// Reads the string whose opening quote is at `position`.
    mutating func parseString() throws(JSONParseError) -> String {
        let start = position + 1
        var index = start
        var isASCII = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = try makeString(start..<index, isASCII: isASCII)
                position = index + 1
                return string
            }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(start: start, firstEscape: index)
            }
            if byte < 0x20 {
                throw controlCharacterError(at: index)
            }
            if byte >= 0x80 {
                isASCII = false
            }
            index += 1
        }
        throw unterminatedStringError(start: start)
    }

    func makeString(_ range: Range<Int>, isASCII: Bool) throws(JSONParseError) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        if isASCII {
            return String(decoding: slice, as: UTF8.self)
        }
        guard let string = String(validating: slice, as: UTF8.self) else {
            throw invalidUTF8Error(in: range)
        }
        return string
    }

    mutating func parseEscapedString(start: Int, firstEscape: Int) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<firstEscape]))
        var rawIsASCII = true
        var index = firstEscape
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                if !rawIsASCII, String(validating: scratch, as: UTF8.self) == nil {
                    // Escapes only ever produce valid UTF-8, so the culprit is a raw byte in the input.
                    throw invalidUTF8Error(in: start..<index)
                }
                position = index + 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                index = try decodeEscape(at: index)
                continue
            }
            if byte < 0x20 {
                throw controlCharacterError(at: index)
            }
            // Copy the run of plain bytes up to the next quote, backslash or control character at once.
            var end = index + 1
            while end < bytes.count {
                let next = bytes[end]
                if next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") || next < 0x20 { break }
                end += 1
            }
            let run = UnsafeBufferPointer(rebasing: bytes[index..<end])
            if rawIsASCII, run.contains(where: { $0 >= 0x80 }) {
                rawIsASCII = false
            }
            scratch.append(contentsOf: run)
            index = end
        }
        throw unterminatedStringError(start: start)
    }

    /// Decodes the escape sequence whose backslash is at `index` into `scratch` and returns the
    /// index just past it.
    mutating func decodeEscape(at index: Int) throws(JSONParseError) -> Int {
        guard index + 1 < bytes.count else {
            throw error(.unexpectedEndOfInput, at: index + 1, "the input ends inside an escape sequence; the JSON is truncated")
        }
        let simple: UInt8
        switch bytes[index + 1] {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            return try decodeUnicodeEscape(at: index)
        default:
            throw error(
                .invalidEscape, at: index,
                "invalid escape '\\\(describeByte(at: index + 1, quoted: false))'; valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
        }
        scratch.append(simple)
        return index + 2
    }

    mutating func decodeUnicodeEscape(at index: Int) throws(JSONParseError) -> Int {
        let unit = try readHexQuad(escapeAt: index)
        var scalarValue = UInt32(unit)
        var next = index + 6
        switch unit {
        case 0xD800...0xDBFF:
            guard next + 1 < bytes.count, bytes[next] == UInt8(ascii: "\\"), bytes[next + 1] == UInt8(ascii: "u") else {
                throw unpairedSurrogateError(unit, at: index)
            }
            let low = try readHexQuad(escapeAt: next)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw unpairedSurrogateError(unit, at: index)
            }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            next += 6
        case 0xDC00...0xDFFF:
            throw unpairedSurrogateError(unit, at: index)
        default:
            break
        }
        appendUTF8(scalarValue)
        return next
    }

    /// Appends a Unicode scalar value (never a surrogate, at most 0x10FFFF) as UTF-8.
    mutating func appendUTF8(_ value: UInt32) {
        switch value {
        case 0..<0x80:
            scratch.append(UInt8(value))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | value >> 6))
            scratch.append(UInt8(0x80 | value & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | value >> 12))
            scratch.append(UInt8(0x80 | value >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | value & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | value >> 18))
            scratch.append(UInt8(0x80 | value >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | value >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | value & 0x3F))
        }
    }

    func readHexQuad(escapeAt index: Int) throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for offset in 2..<6 {
            let at = index + offset
            guard at < bytes.count else {
                throw error(.unexpectedEndOfInput, at: at, "the input ends inside a \\u escape; the JSON is truncated")
            }
            let digit: UInt8
            switch bytes[at] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = bytes[at] - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = bytes[at] - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = bytes[at] - UInt8(ascii: "A") + 10
            default:
                throw error(
                    .invalidUnicodeEscape, at: at,
                    "unexpected \(describeByte(at: at)) in a \\u escape; it needs exactly four hexadecimal digits")
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    // MARK: Errors

    private func controlCharacterError(at index: Int) -> JSONParseError {
        let hex = String(bytes[index], radix: 16, uppercase: true)
        let code = String(repeating: "0", count: 4 - hex.count) + hex
        return error(
            .controlCharacterInString, at: index,
            "raw control character U+\(code) in a string; escape it (for example \\n or \\u\(code))")
    }

    private func unterminatedStringError(start: Int) -> JSONParseError {
        error(.unexpectedEndOfInput, at: bytes.count, "the input ends inside a string; add the closing '\"'")
    }

    private func unpairedSurrogateError(_ unit: UInt16, at index: Int) -> JSONParseError {
        let hex = String(unit, radix: 16, uppercase: true)
        return error(
            .unpairedSurrogate, at: index,
            "\\u\(hex) is half of a UTF-16 surrogate pair without its other half; escape the whole character as a pair")
    }

    private func invalidUTF8Error(in range: Range<Int>) -> JSONParseError {
        let offset =
            UTF8Validation.firstInvalidOffset(in: UnsafeBufferPointer(rebasing: bytes[range])).map { range.lowerBound + $0 }
            ?? range.lowerBound
        return error(.invalidUTF8, at: offset, "byte 0x\(String(bytes[offset], radix: 16, uppercase: true)) is not valid UTF-8; save the file as UTF-8")
    }
}
