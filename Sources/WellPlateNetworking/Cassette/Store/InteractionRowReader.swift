import Foundation
import HTTPTypes

/// Reads rows selected with `CassetteSchema.interactionColumns`. Recordings of one API repeat the
/// same header blocks, so each distinct block is decoded once and the `HTTPFields` shared: that
/// keeps opening a large cassette fast and its memory close to its body bytes.
struct InteractionRowReader {
    /// Leave out a response's `Content-Length` when it only restates the body's length, so blocks
    /// that differ by nothing else are shared (`Interaction.response` puts it back).
    let derivesContentLength: Bool
    private var decoded: [String: HTTPFields] = [:]

    init(derivesContentLength: Bool = false) {
        self.derivesContentLength = derivesContentLength
    }

    mutating func read(_ row: SQLiteStatement) throws -> Interaction {
        let methodText = row.text(at: 2)
        guard let method = HTTPMethod(rawValue: methodText) else {
            throw SQLiteError.library(.mismatch, "interaction \(row.int64(at: 0)) has an unknown method '\(methodText)'", path: "")
        }
        let responseBody = row.blob(at: 10)
        var responseText = row.text(at: 9)
        if derivesContentLength && method != .head {
            responseText = Self.removingContentLength(responseText, equalTo: responseBody.count)
        }
        return Interaction(
            id: row.int64(at: 0),
            cassette: row.text(at: 1),
            method: method,
            url: row.text(at: 3),
            key: row.text(at: 4),
            sequence: row.int(at: 5),
            requestHeaders: headers(row.text(at: 6)),
            requestBody: row.isNull(at: 7) ? nil : row.blob(at: 7),
            statusCode: row.int(at: 8),
            responseHeaders: headers(responseText),
            responseBody: responseBody,
            contentEncoding: row.isNull(at: 11) ? nil : row.text(at: 11),
            recordedAt: Date(timeIntervalSince1970: row.double(at: 12)),
            duration: .microseconds(Int64((row.double(at: 13) * 1000).rounded()))
        )
    }

    private mutating func headers(_ text: String) -> HTTPFields {
        if let shared = decoded[text] { return shared }
        let fields = HeaderLines.decode(text)
        decoded[text] = fields
        return fields
    }

    /// `HeaderLines` writes `Content-Length: N` as a line of its own. A byte scan: Foundation's
    /// `range(of:)` would dominate the time it takes to open a large cassette.
    static func removingContentLength(_ text: String, equalTo length: Int) -> String {
        let needle = Array("Content-Length: \(length)\n".utf8)
        var utf8 = text.utf8
        let found: Range<Int>? = utf8.withContiguousStorageIfAvailable { bytes -> Range<Int>? in
            var start = 0
            while start + needle.count <= bytes.count {
                if bytes[start] == needle[0], bytes[start..<(start + needle.count)].elementsEqual(needle) {
                    return start..<(start + needle.count)
                }
                // Only line starts can begin the field.
                guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
                start = newline + 1
            }
            return nil
        } ?? nil
        guard let found else { return text }
        var bytes = Array(utf8)
        bytes.removeSubrange(found)
        utf8 = String(decoding: bytes, as: UTF8.self).utf8
        return String(utf8)
    }
}
