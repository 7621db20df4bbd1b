import Foundation
import WellPlateCore
import WellPlateNetworking

/// Bodies in HAR `text` fields are decoded characters, not bytes: the writer decoded them with
/// the charset of the Content-Type. Getting the bytes back means encoding with the same charset.
enum HARText {
    /// The bytes `text` was decoded from. The Content-Type's charset when it names one; otherwise
    /// UTF-8 for text-like types, and ISO 8859-1 for other types whose text fits in it (how
    /// mitmproxy writes bytes it did not find binary enough for base64), or for any type but
    /// JSON when mitmproxy wrote the file (its fallback charset).
    static func bytes(of text: String, contentType: String?, writtenByMitmproxy: Bool) -> Data {
        let type = contentType?.lowercased() ?? ""
        let encoding: String.Encoding
        if let charset = charset(in: type) {
            encoding = Self.encoding(named: charset) ?? .utf8
        } else if type.contains("json") {
            encoding = .utf8
        } else if writtenByMitmproxy || !isTextual(type), fitsLatin1(text) {
            encoding = .isoLatin1
        } else {
            encoding = .utf8
        }
        return text.data(using: encoding) ?? Data(text.utf8)
    }

    /// Whether a body can go in a `text` field as UTF-8 and come back as the same bytes in any
    /// reader: ASCII always; other UTF-8 only where the Content-Type says UTF-8 (a charset or
    /// JSON), since readers such as mitmproxy fall back to ISO 8859-1 otherwise.
    static func isSafeAsText(_ body: Data, contentType: String?) -> Bool {
        guard let text = String(data: body, encoding: .utf8), Data(text.utf8) == body else { return false }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" }) { return false }
        if body.allSatisfy({ $0 < 0x80 }) { return true }
        let type = contentType?.lowercased() ?? ""
        return type.contains("json") || charset(in: type).map { encoding(named: $0) == .utf8 } == true
    }

    static func charset(in type: String) -> String? {
        guard let range = type.range(of: "charset=") else { return nil }
        let value = type[range.upperBound...].prefix { $0 != ";" }.trimmingCharacters(in: CharacterSet(charactersIn: "\"' "))
        return value.isEmpty ? nil : value
    }

    private static func encoding(named charset: String) -> String.Encoding? {
        switch charset {
        case "utf-8", "utf8": .utf8
        case "iso-8859-1", "latin1", "latin-1", "iso8859-1": .isoLatin1
        case "windows-1252", "cp1252": .windowsCP1252
        case "us-ascii", "ascii": .ascii
        case "utf-16": .utf16
        default: nil
        }
    }

    private static func isTextual(_ type: String) -> Bool {
        type.isEmpty || type.hasPrefix("text/") || ["json", "xml", "javascript", "x-www-form-urlencoded", "html"].contains { type.contains($0) }
    }

    private static func fitsLatin1(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.value <= 0xFF }
    }
}
