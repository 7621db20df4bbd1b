import Foundation
import HTTPTypes

/// Stores header fields as `Name: value` lines: readable in the sqlite3 shell, and parsed with a
/// byte scan when a store of 100,000 interactions is opened (JSON would cost ten times more).
///
/// A value that is not UTF-8 (latin-1 bytes are legal in HTTP/1.1) is written `Name:% value` with
/// `%`, controls and bytes 0x80–0xFF percent-encoded, so it comes back byte for byte; every other
/// line has a space after the colon, so the two cannot be confused.
enum HeaderLines {
    static func encode(_ fields: HTTPFields) -> String {
        var text = ""
        text.reserveCapacity(fields.count * 32)
        for field in fields {
            text += field.name.rawName
            if let escaped = escapedIfNotUTF8(field) {
                text += ":% "
                text += escaped
            } else {
                text += ": "
                text += field.value
            }
            text += "\n"
        }
        return text
    }

    private static func escapedIfNotUTF8(_ field: HTTPField) -> String? {
        field.withUnsafeBytesOfValue { bytes -> String? in
            guard bytes.contains(where: { $0 >= 0x80 }), String(validating: bytes, as: UTF8.self) == nil else { return nil }
            var text = ""
            for byte in bytes {
                if byte >= 0x80 || byte < 0x20 || byte == UInt8(ascii: "%") {
                    let hex = String(byte, radix: 16, uppercase: true)
                    text += hex.count == 1 ? "%0" + hex : "%" + hex
                } else {
                    text.unicodeScalars.append(Unicode.Scalar(byte))
                }
            }
            return text
        }
    }

    static func decode(_ text: String) -> HTTPFields {
        var fields = HTTPFields()
        var utf8 = text.utf8[...]
        while !utf8.isEmpty {
            let end = utf8.firstIndex(of: UInt8(ascii: "\n")) ?? utf8.endIndex
            let line = utf8[..<end]
            utf8 = end == utf8.endIndex ? utf8[end...] : utf8[utf8.index(after: end)...]
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            guard let name = HTTPField.Name(String(Substring(line[..<colon]))) else { continue }
            var valueStart = line.index(after: colon)
            if line[valueStart...].starts(with: "% ".utf8) {
                let escaped = line[line.index(valueStart, offsetBy: 2)...]
                fields.append(HTTPField(name: name, value: PercentEncoding.decode(ArraySlice(escaped))))
                continue
            }
            if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") {
                valueStart = line.index(after: valueStart)
            }
            fields.append(HTTPField(name: name, value: String(Substring(line[valueStart...]))))
        }
        return fields
    }
}
