import Foundation
import HTTPTypes

/// Stores header fields as `Name: value` lines: readable in the sqlite3 shell, and parsed with a
/// byte scan when a store of 100,000 interactions is opened (JSON would cost ten times more).
enum HeaderLines {
    static func encode(_ fields: HTTPFields) -> String {
        var text = ""
        text.reserveCapacity(fields.count * 32)
        for field in fields {
            text += field.name.rawName
            text += ": "
            text += field.value
            text += "\n"
        }
        return text
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
            if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") {
                valueStart = line.index(after: valueStart)
            }
            fields.append(HTTPField(name: name, value: String(Substring(line[valueStart...]))))
        }
        return fields
    }
}
