import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// A body as a person reads it: JSON pretty-printed (keys sorted), text as it is, anything else as
/// its size and a hex dump of its first bytes, which keeps terminal escapes in a body off the screen.
enum BodyPreview: Equatable {
    case empty
    case json(JSONValue)
    case text(String)
    case binary(Data)

    /// Bytes shown of a binary body.
    static let hexPreviewLength = 64

    init(_ body: Data, contentType: String?) {
        guard !body.isEmpty else {
            self = .empty
            return
        }
        if Self.mayBeJSON(body, contentType: contentType), let value = try? JSONValue(parsing: body) {
            self = .json(value)
        } else if let text = String(data: body, encoding: .utf8), Self.isPrintable(text) {
            self = .text(text)
        } else {
            self = .binary(body)
        }
    }

    /// What the body is, for its heading: `JSON, 1.2 KiB`.
    var kind: String {
        switch self {
        case .empty: "empty"
        case .json: "JSON"
        case .text: "text"
        case .binary: "binary"
        }
    }

    /// The lines to print under the heading.
    var lines: [String] {
        switch self {
        case .empty:
            return []
        case .json(let value):
            return value.prettyJSON.components(separatedBy: "\n")
        case .text(let text):
            var lines = text.components(separatedBy: "\n")
            if lines.count > 1, lines.last == "" { lines.removeLast() }
            return lines.map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
        case .binary(let data):
            var lines = Self.hexDump(data.prefix(Self.hexPreviewLength))
            if data.count > Self.hexPreviewLength {
                lines.append("… \(data.count - Self.hexPreviewLength) more bytes")
            }
            return lines
        }
    }

    /// `--json` form: `{"json": value}`, `{"text": "..."}` or `{"base64": "..."}`, so a body
    /// survives the round trip whatever it holds.
    var jsonValue: JSONValue {
        switch self {
        case .empty: ["text": ""]
        case .json(let value): ["json": value]
        case .text(let text): ["text": .string(text)]
        case .binary(let data): ["base64": .string(data.base64EncodedString())]
        }
    }

    /// `xxd` layout: offset, 16 bytes in hex, the printable ASCII.
    static func hexDump(_ bytes: Data) -> [String] {
        let digits = Array("0123456789abcdef")
        return stride(from: 0, to: bytes.count, by: 16).map { offset in
            let row = bytes.dropFirst(offset).prefix(16)
            var hex = ""
            var ascii = ""
            for (index, byte) in row.enumerated() {
                if index > 0 { hex += index == 8 ? "  " : " " }
                hex.append(digits[Int(byte >> 4)])
                hex.append(digits[Int(byte & 0xF)])
                ascii.append(byte >= 0x20 && byte < 0x7F ? Character(Unicode.Scalar(byte)) : ".")
            }
            let hexOffset = String(offset, radix: 16)
            let paddedOffset = String(repeating: "0", count: max(0, 8 - hexOffset.count)) + hexOffset
            let paddedHex = hex + String(repeating: " ", count: max(0, 48 - hex.count))
            return "\(paddedOffset)  \(paddedHex)  |\(ascii)|"
        }
    }

    private static func mayBeJSON(_ body: Data, contentType: String?) -> Bool {
        if let contentType, contentType.lowercased().contains("json") { return true }
        guard let first = body.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// Text without control characters other than tab, line feed and carriage return.
    private static func isPrintable(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: true
            case 0x00..<0x20, 0x7F..<0xA0: false
            default: true
            }
        }
    }
}
