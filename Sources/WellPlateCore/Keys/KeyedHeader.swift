import HTTPTypes

/// A request header that is part of a key: the conditional headers always (so a request without
/// a cached copy never gets a recorded 304), and the names in `MatchingRules.matchedHeaders`.
/// Written after the body part as `h:NAME=VALUE`, the name lower-cased, the value percent-encoded
/// where it holds spaces, `%` or bytes outside printable ASCII, so key text never has spaces in it.
package struct KeyedHeader: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Lower-cased.
    package let name: String
    /// All values of the field, joined with `, `, trimmed, percent-encoded as in the key.
    package let value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// The headers that make a request conditional (RFC 9110 §13.1.3, §13.1.4).
    package static let conditionalNames: Set<String> = ["if-none-match", "if-modified-since"]

    static let prefix = "h:"

    package var description: String { "\(Self.prefix)\(name)=\(value)" }

    /// Parses `h:name=value` from stored key text.
    init?(parsing part: Substring) {
        guard part.hasPrefix(Self.prefix), let equals = part.firstIndex(of: "=") else { return nil }
        let name = part[part.index(part.startIndex, offsetBy: Self.prefix.count)..<equals]
        guard !name.isEmpty, HTTPField.Name(String(name)) != nil else { return nil }
        self.init(name: name.lowercased(), value: String(part[part.index(after: equals)...]))
    }

    /// The keyed headers of a request, sorted by name; absent and empty fields are left out.
    static func make(from fields: HTTPFields, names: [String]) -> [KeyedHeader] {
        guard !fields.isEmpty else { return [] }
        var result: [KeyedHeader] = []
        for name in names {
            guard let fieldName = HTTPField.Name(name) else { continue }
            var bytes: [UInt8] = []
            for field in fields where field.name == fieldName {
                let value = field.withUnsafeBytesOfValue { Array($0) }
                guard !value.isEmpty else { continue }
                if !bytes.isEmpty { bytes += Array(", ".utf8) }
                bytes += value
            }
            guard !bytes.isEmpty else { continue }
            result.append(KeyedHeader(name: name, value: encode(bytes)))
        }
        return result
    }

    private static func encode(_ bytes: [UInt8]) -> String {
        var text = ""
        text.reserveCapacity(bytes.count)
        for byte in bytes {
            if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "%") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return text
    }
}

private extension String {
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
