import WellPlateCore
import WellPlateNetworking

/// `name=value`, `name: value` and `"name": "value"` in free text (logs, YAML, XML-ish bodies,
/// error messages), for the names-based checks of `SecretAudit`.
enum KeywordAssignments {
    static func find(in text: String) -> [(name: String, value: String)] {
        var results: [(String, String)] = []
        let bytes = Array(text.utf8)
        let nameBytes = ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "=") || byte == UInt8(ascii: ":") else {
                index += 1
                continue
            }
            var nameEnd = index
            while nameEnd > 0, bytes[nameEnd - 1] == UInt8(ascii: " ") || bytes[nameEnd - 1] == UInt8(ascii: "\"") || bytes[nameEnd - 1] == UInt8(ascii: "'") {
                nameEnd -= 1
            }
            var nameStart = nameEnd
            while nameStart > 0, nameBytes.contains(bytes[nameStart - 1]) { nameStart -= 1 }
            var valueStart = index + 1
            while valueStart < bytes.count,
                bytes[valueStart] == UInt8(ascii: " ") || bytes[valueStart] == UInt8(ascii: "\"") || bytes[valueStart] == UInt8(ascii: "'")
            { valueStart += 1 }
            var valueEnd = valueStart
            while valueEnd < bytes.count, !Self.ends(bytes[valueEnd]) { valueEnd += 1 }
            if nameStart < nameEnd, valueStart < valueEnd {
                let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
                if SecretNames.kind(of: name) != nil {
                    results.append((name, String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)))
                }
            }
            index = max(index + 1, valueStart)
        }
        return results
    }

    private static func ends(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: ",")
            || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "}")
    }
}
