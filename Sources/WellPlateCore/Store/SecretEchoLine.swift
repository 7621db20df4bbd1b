import Foundation

/// The stored form of a response's `SecretEcho`s: one line among its header lines, without a
/// colon, so a build that does not know it skips it (`HeaderLines`):
///
///     (Echoes body,120,header,authorization,whole,raw header,x-echo,0,7,cookie,sid,whole,json)
///
/// An entry is its part (`body,OFFSET` or `header,NAME,OCCURRENCE,OFFSET`), then its source
/// (`header,NAME` or `cookie,NAME`), derivation and encoding; names are percent-encoded beyond
/// letters, digits and `-._`. An entry this build cannot read is skipped.
enum SecretEchoLine {
    static let prefix = "(Echoes "

    static func encode(_ echoes: [SecretEcho]) -> String {
        let entries = echoes.map { echo -> String in
            var fields: [String]
            switch echo.part {
            case .body: fields = ["body", String(echo.offset)]
            case .header(let name, let occurrence): fields = ["header", escaped(name), String(occurrence), String(echo.offset)]
            }
            switch echo.source {
            case .header(let name): fields += ["header", escaped(name)]
            case .cookie(let name): fields += ["cookie", escaped(name)]
            }
            fields += [echo.derivation.rawValue, echo.encoding.rawValue]
            return fields.joined(separator: ",")
        }
        return prefix + entries.joined(separator: " ") + ")"
    }

    static func decode(_ line: Substring) -> [SecretEcho] {
        guard line.hasPrefix(prefix), line.hasSuffix(")") else { return [] }
        return line.dropFirst(prefix.count).dropLast().split(separator: " ").compactMap { entry in
            var fields = entry.split(separator: ",", omittingEmptySubsequences: false).map(String.init)[...]
            let part: SecretEcho.Part
            let offset: Int
            switch fields.popFirst() {
            case "body":
                guard let text = fields.popFirst(), let value = Int(text), value >= 0 else { return nil }
                part = .body
                offset = value
            case "header":
                guard fields.count >= 3, let name = unescaped(fields.removeFirst()), let occurrence = Int(fields.removeFirst()),
                    let value = Int(fields.removeFirst()), occurrence >= 0, value >= 0
                else { return nil }
                part = .header(name, occurrence: occurrence)
                offset = value
            default:
                return nil
            }
            guard fields.count == 4, let name = unescaped(fields[fields.startIndex + 1]),
                let derivation = SecretEcho.Derivation(rawValue: fields[fields.startIndex + 2]),
                let encoding = SecretEcho.Encoding(rawValue: fields[fields.startIndex + 3])
            else { return nil }
            let source: SecretEcho.Source
            switch fields.first {
            case "header": source = .header(name)
            case "cookie": source = .cookie(name)
            default: return nil
            }
            return SecretEcho(part: part, offset: offset, source: source, derivation: derivation, encoding: encoding)
        }
    }

    private static let plain = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._")

    private static func escaped(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: plain) ?? name
    }

    private static func unescaped(_ text: String) -> String? {
        text.removingPercentEncoding
    }
}
