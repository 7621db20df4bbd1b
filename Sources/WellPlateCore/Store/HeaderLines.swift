import Foundation
import HTTPTypes

/// Stores header fields as `Name: value` lines: readable in the sqlite3 shell, and parsed with a
/// byte scan when a store of 100,000 interactions is opened (JSON would cost ten times more).
///
/// A value that is not UTF-8 (latin-1 bytes are legal in HTTP/1.1) is written `Name:% value` with
/// `%`, controls and bytes 0x80–0xFF percent-encoded, so it comes back byte for byte; every other
/// line has a space after the colon, so the two cannot be confused.
///
/// Bodies are stored decoded, so `Content-Encoding` is not among the fields; a marker line stands
/// where it was, so an export can put it back in the order recorded. The marker has no colon:
/// a build that does not know it skips it, and a store stays readable by older builds.
/// A response that echoed secrets of its request ends with one more such line, `(Echoes ...)`,
/// saying where (`SecretEchoLine`).
enum HeaderLines {
    static let decodedEncodingMarker = "(Content-Encoding)"

    /// `decodedEncodingAt`: where the marker goes among `fields` (clamped to the end).
    static func encode(_ fields: HTTPFields, decodedEncodingAt position: Int? = nil, echoes: [SecretEcho] = []) -> String {
        var text = ""
        text.reserveCapacity(fields.count * 32)
        for (index, field) in fields.enumerated() {
            if index == position { text += decodedEncodingMarker + "\n" }
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
        if let position, position >= fields.count { text += decodedEncodingMarker + "\n" }
        if !echoes.isEmpty { text += SecretEchoLine.encode(echoes) + "\n" }
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
        decodeMarked(text).fields
    }

    /// The fields, the index the decoded-encoding marker stood at, if any, and the secret echoes.
    static func decodeMarked(_ text: String) -> (fields: HTTPFields, decodedEncodingPosition: Int?, echoes: [SecretEcho]) {
        var fields = HTTPFields()
        var position: Int?
        var echoes: [SecretEcho] = []
        var utf8 = text.utf8[...]
        while !utf8.isEmpty {
            let end = utf8.firstIndex(of: UInt8(ascii: "\n")) ?? utf8.endIndex
            let line = utf8[..<end]
            utf8 = end == utf8.endIndex ? utf8[end...] : utf8[utf8.index(after: end)...]
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                if line.elementsEqual(decodedEncodingMarker.utf8) {
                    position = fields.count
                } else if line.starts(with: SecretEchoLine.prefix.utf8) {
                    echoes = SecretEchoLine.decode(Substring(line))
                }
                continue
            }
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
        return (fields, position, echoes)
    }
}
