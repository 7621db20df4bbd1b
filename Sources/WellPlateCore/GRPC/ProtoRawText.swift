import Foundation

/// A message read without its schema, as `protoc --decode_raw` prints it: field numbers, varints
/// as unsigned integers, fixed values in hex, a length-delimited field as a nested message when it
/// parses as one, else as a string when it is printable UTF-8, else as escaped bytes.
package enum ProtoRawText {
    /// The `--decode_raw` text of `message`, or `nil` when it is not a protobuf message at all.
    package static func text(of message: Data) -> String? {
        guard let fields = try? ProtoWireReader.fields(of: message) else { return nil }
        var lines: [String] = []
        write(fields, indentation: "", into: &lines)
        return lines.joined(separator: "\n")
    }

    private static func write(_ fields: [(number: Int, value: ProtoWireValue)], indentation: String, into lines: inout [String]) {
        for (number, value) in fields {
            switch value {
            case .varint(let raw): lines.append("\(indentation)\(number): \(raw)")
            case .fixed64(let raw): lines.append("\(indentation)\(number): 0x\(hex(raw, width: 16))")
            case .fixed32(let raw): lines.append("\(indentation)\(number): 0x\(hex(UInt64(raw), width: 8))")
            case .lengthDelimited(let bytes):
                if let nested = nestedFields(bytes) {
                    lines.append("\(indentation)\(number) {")
                    write(nested, indentation: indentation + "  ", into: &lines)
                    lines.append("\(indentation)}")
                } else {
                    lines.append("\(indentation)\(number): \"\(escaped(bytes))\"")
                }
            }
        }
    }

    /// The value of a length-delimited field without a schema, for JSON: an object keyed by field
    /// number when it parses as a message, else the string, else base64.
    package static func json(of bytes: Data) -> JSONValue {
        if let nested = nestedFields(bytes) {
            var object = JSONObject()
            for (number, value) in nested {
                let element: JSONValue
                switch value {
                case .varint(let raw): element = .string(String(raw))
                case .fixed64(let raw): element = .string(String(raw))
                case .fixed32(let raw): element = .integer(Int64(raw))
                case .lengthDelimited(let inner): element = json(of: inner)
                }
                let key = String(number)
                switch object[key] {
                case nil: object[key] = element
                case .array(let existing)?: object[key] = .array(existing + [element])
                case let existing?: object[key] = .array([existing, element])
                }
            }
            return .object(object)
        }
        if let text = String(data: bytes, encoding: .utf8), isPrintable(text) { return .string(text) }
        return .string(bytes.base64EncodedString())
    }

    /// The fields of `bytes` when they read as a non-empty message (what protoc guesses too).
    private static func nestedFields(_ bytes: Data) -> [(number: Int, value: ProtoWireValue)]? {
        guard !bytes.isEmpty, let fields = try? ProtoWireReader.fields(of: bytes), !fields.isEmpty else { return nil }
        // Printable text that happens to parse (rare, but "hi" does not) stays text.
        if let text = String(data: bytes, encoding: .utf8), isPrintable(text), text.count > 1 { return nil }
        return fields
    }

    private static func isPrintable(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F || $0 == "\n" || $0 == "\t" }
    }

    private static func escaped(_ bytes: Data) -> String {
        var result = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): result += "\\\""
            case UInt8(ascii: "\\"): result += "\\\\"
            case UInt8(ascii: "\n"): result += "\\n"
            case 0x20..<0x7F: result.append(Character(UnicodeScalar(byte)))
            default: result += "\\" + String(byte, radix: 8).leftPadded(to: 3)
            }
        }
        return result
    }

    private static func hex(_ value: UInt64, width: Int) -> String {
        String(value, radix: 16).leftPadded(to: width)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
