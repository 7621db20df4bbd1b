import Foundation

/// How `JSONValue` is written out.
package struct JSONWritingOptions: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// One member or element per line, indented by two spaces, `"key": value` (one space after the
    /// colon, as `JSON.stringify(value, null, 2)` and `jq` write it). Empty containers stay `[]` and `{}`.
    package static let prettyPrinted = JSONWritingOptions(rawValue: 1 << 0)
    /// Object keys in Unicode code point order (their UTF-8 bytes), independent of locale and of the
    /// order they were parsed in.
    package static let sortedKeys = JSONWritingOptions(rawValue: 1 << 1)
}

extension JSONValue {
    /// The value as UTF-8 JSON. Strings escape only `"`, `\` and control characters (`/` and
    /// non-ASCII stay as they are); numbers use the shortest form that reads back to the same
    /// `Double`; non-finite numbers, which JSON cannot express, are written as `null`.
    /// No trailing newline is added.
    package func jsonData(options: JSONWritingOptions = []) -> Data {
        Data(jsonBytes(options: options))
    }

    package func jsonString(options: JSONWritingOptions = []) -> String {
        String(decoding: jsonBytes(options: options), as: UTF8.self)
    }

    /// Compact JSON, object keys in their current order.
    package var compactJSON: String { jsonString() }

    /// The canonical form for files and comparisons: pretty-printed with sorted keys.
    package var prettyJSON: String { jsonString(options: [.prettyPrinted, .sortedKeys]) }

    private func jsonBytes(options: JSONWritingOptions) -> [UInt8] {
        var writer = JSONWriter(options: options)
        writer.write(self, indentation: 0)
        return writer.output
    }
}

/// Writes `JSONValue`s, either as `JSONWritingOptions` say or in the canonical form of request
/// keys (`CanonicalJSON`), which shares everything but how numbers are written and which keys are left out.
struct JSONWriter {
    let isPretty: Bool
    let sortsKeys: Bool
    /// Numbers in the canonical decimal form of `CanonicalNumber` (`1` for `1.0`, `1e21` for `1e+21`).
    let writesCanonicalNumbers: Bool
    /// Lower-cased names of object keys left out at any depth, compared with the key lower-cased.
    let omittedKeys: Set<String>
    var output: [UInt8] = []

    init(options: JSONWritingOptions) {
        isPretty = options.contains(.prettyPrinted)
        sortsKeys = options.contains(.sortedKeys)
        writesCanonicalNumbers = false
        omittedKeys = []
        output.reserveCapacity(256)
    }

    /// Compact, keys sorted by their UTF-8 bytes, canonical numbers, `omittedKeys` left out.
    init(canonicalOmitting omittedKeys: Set<String>) {
        isPretty = false
        sortsKeys = true
        writesCanonicalNumbers = true
        self.omittedKeys = omittedKeys
        output.reserveCapacity(256)
    }

    mutating func write(_ value: JSONValue, indentation: Int) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        // Already canonical in both forms: whole, below 1e21, and `-0` parses as 0.
        case .integer(let integer): output.append(contentsOf: String(integer).utf8)
        case .bigInteger(let literal):
            if writesCanonicalNumbers {
                CanonicalNumber.append(bigInteger: literal, to: &output)
            } else {
                output.append(contentsOf: literal.utf8)
            }
        case .number(let number):
            if !number.isFinite {
                append("null")
            } else if writesCanonicalNumbers {
                CanonicalNumber.append(number, to: &output)
            } else {
                output.append(contentsOf: number.description.utf8)
            }
        case .string(let string): write(string: string)
        case .array(let elements):
            writeContainer(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), count: elements.count, indentation: indentation) {
                $0.write(elements[$1], indentation: indentation + 2)
            }
        case .object(let object):
            var members = sortsKeys ? object.sortedMembers : object.members
            if !omittedKeys.isEmpty {
                members.removeAll { omittedKeys.contains($0.key.lowercased()) }
            }
            writeContainer(open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), count: members.count, indentation: indentation) {
                $0.write(string: members[$1].key)
                $0.output.append(UInt8(ascii: ":"))
                if $0.isPretty { $0.output.append(UInt8(ascii: " ")) }
                $0.write(members[$1].value, indentation: indentation + 2)
            }
        }
    }

    private mutating func writeContainer(
        open: UInt8, close: UInt8, count: Int, indentation: Int,
        element: (inout JSONWriter, Int) -> Void
    ) {
        output.append(open)
        for index in 0..<count {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            if isPretty { newline(indentation: indentation + 2) }
            element(&self, index)
        }
        if isPretty, count > 0 { newline(indentation: indentation) }
        output.append(close)
    }

    private mutating func newline(indentation: Int) {
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indentation))
    }

    private mutating func append(_ literal: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    mutating func write(string: String) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0x00..<0x20:
                append("\\u00")
                output.append(Self.hexDigits[Int(byte >> 4)])
                output.append(Self.hexDigits[Int(byte & 0x0F)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
