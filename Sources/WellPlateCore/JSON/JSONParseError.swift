import Foundation

/// Why a document is not valid JSON, and exactly where.
package struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The input holds nothing but whitespace.
        case emptyInput
        /// The input ends inside a value.
        case unexpectedEndOfInput
        /// A byte that cannot start or continue the value being read.
        case unexpectedCharacter
        /// A number that breaks the RFC 8259 grammar (leading zero, missing digits).
        case invalidNumber
        /// A number whose magnitude exceeds the largest `Double`.
        case numberOutOfRange
        /// A backslash followed by something other than `" \ / b f n r t u`.
        case invalidEscape
        /// `\u` not followed by four hexadecimal digits.
        case invalidUnicodeEscape
        /// A UTF-16 surrogate escape without its partner.
        case unpairedSurrogate
        /// A raw control character (below U+0020) inside a string.
        case controlCharacterInString
        /// Bytes that are not valid UTF-8.
        case invalidUTF8
        /// Arrays and objects nested deeper than the parser's limit.
        case nestingTooDeep
        /// Something other than whitespace after the document's value.
        case trailingContent
    }

    package var kind: Kind
    /// Zero-based byte offset of the offending byte (the input's length when it ended too early).
    package var offset: Int
    /// One-based line number; lines end at `\n`.
    package var line: Int
    /// One-based column, counted in Unicode scalars from the start of the line.
    package var column: Int
    /// What is wrong and what to do about it, in one line.
    package var reason: String

    package init(kind: Kind, offset: Int, line: Int, column: Int, reason: String) {
        self.kind = kind
        self.offset = offset
        self.line = line
        self.column = column
        self.reason = reason
    }

    package var description: String {
        "invalid JSON at line \(line), column \(column) (byte \(offset)): \(reason)"
    }
}

extension JSONParseError {
    /// Builds the error for `offset` in `bytes`, working out line and column only now: the
    /// successful path never pays for position tracking.
    init(_ kind: Kind, at offset: Int, in bytes: UnsafeRawBufferPointer, _ reason: String) {
        var line = 1
        var lineStart = 0
        let limit = min(offset, bytes.count)
        for index in 0..<limit where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        var column = 1
        for index in lineStart..<limit where bytes[index] & 0xC0 != 0x80 {
            column += 1
        }
        self.init(kind: kind, offset: offset, line: line, column: column, reason: reason)
    }
}

extension JSONParseError: LocalizedError {
    package var errorDescription: String? { description }
}
