import Crypto
import Foundation

/// `multipart/form-data` bodies (RFC 7578) keyed by their parts, never by the boundary, which
/// clients pick at random for every upload. Each part becomes one line, in order:
///
///     name="caption"; type=text/plain; value="Lunch"
///     name="photo"; filename="meal.jpg"; type=image/jpeg; sha256=9f86d081884c7d65; bytes=5120
///
/// Short UTF-8 text parts without a file name keep their value (readable in miss explanations);
/// anything else is represented by a digest and its length. Parts named in
/// `MatchingRules.ignoredBodyFields` are left out.
enum MultipartCanonicalForm {
    /// The canonical text, or `nil` when `contentType` is not multipart/form-data with a boundary
    /// or the body does not parse (it is then hashed byte for byte).
    static func canonicalText(of body: Data, contentType: String, ignoring ignored: Set<String>) -> [UInt8]? {
        guard let boundary = boundary(in: contentType) else { return nil }
        guard let parts = parts(of: body, boundary: boundary) else { return nil }
        var lines: [String] = []
        for part in parts {
            let disposition = part.headers["content-disposition"].map(parameters) ?? [:]
            let name = disposition["name"] ?? ""
            if ignored.contains(name.lowercased()) { continue }
            var line = "name=\(quoted(name))"
            if let filename = disposition["filename"] { line += "; filename=\(quoted(filename))" }
            let type = part.headers["content-type"].map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? "text/plain"
            line += "; type=\(type)"
            if disposition["filename"] == nil, part.content.count <= 256, !secretNames.contains(name.lowercased()),
                let text = String(data: part.content, encoding: .utf8)
            {
                line += "; value=\(quoted(text))"
            } else {
                line += "; sha256=\(SHA256.hash(data: part.content).hexPrefix(BodyFingerprint.hexLength)); bytes=\(part.content.count)"
            }
            lines.append(line)
        }
        return Array(("multipart/form-data\n" + lines.joined(separator: "\n")).utf8)
    }

    /// Parts whose value is never kept in the clear, even in the canonical text.
    private static let secretNames = Redactor.defaultJSONFields.union(Redactor.defaultQueryParameters)

    private struct Part {
        var headers: [String: String]
        var content: Data
    }

    static func boundary(in contentType: String) -> String? {
        let pieces = contentType.split(separator: ";")
        guard let essence = pieces.first, essence.trimmingCharacters(in: .whitespaces).lowercased() == "multipart/form-data" else { return nil }
        guard let boundary = parameters(contentType)["boundary"], !boundary.isEmpty else { return nil }
        return boundary
    }

    /// The parts between `--boundary` delimiters; `nil` without a closing delimiter.
    private static func parts(of body: Data, boundary: String) -> [Part]? {
        let delimiter = Data("--\(boundary)".utf8)
        let crlf = Data("\r\n".utf8)
        guard var start = body.range(of: delimiter)?.upperBound else { return nil }
        var parts: [Part] = []
        while true {
            // After a delimiter: "--" closes, CRLF opens a part.
            if body[start...].starts(with: Data("--".utf8)) { return parts }
            guard body[start...].starts(with: crlf) else { return nil }
            start += crlf.count
            guard let next = body.range(of: Data("\r\n".utf8) + delimiter, in: start..<body.endIndex) else { return nil }
            let raw = body[start..<next.lowerBound]
            let headerEnd = raw.range(of: Data("\r\n\r\n".utf8))
            let headerBytes = headerEnd.map { raw[raw.startIndex..<$0.lowerBound] } ?? raw[raw.startIndex..<raw.startIndex]
            let content = headerEnd.map { raw[$0.upperBound...] } ?? raw
            parts.append(Part(headers: headers(Data(headerBytes)), content: Data(content)))
            start = next.upperBound
        }
    }

    private static func headers(_ bytes: Data) -> [String: String] {
        var result: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            result[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return result
    }

    /// `form-data; name="a"; filename="b.txt"` → `["name": "a", "filename": "b.txt"]` (names lower-cased).
    private static func parameters(_ header: String) -> [String: String] {
        var result: [String: String] = [:]
        for piece in header.split(separator: ";").dropFirst() {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let name = piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var value = piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            result[name] = value
        }
        return result
    }

    private static func quoted(_ text: String) -> String {
        "\""
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r") + "\""
    }
}
