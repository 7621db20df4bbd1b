import Foundation
import HTTPTypes

/// Reads rows selected with `InteractionColumn.selectList`. Recordings of one API repeat the
/// same header blocks, so each distinct block is decoded once and the `HTTPFields` shared: that
/// keeps opening a large cassette fast and its memory close to its body bytes.
struct InteractionRowReader {
    /// Leave out a response's `Content-Length` when it only restates the body's length, so blocks
    /// that differ by nothing else are shared (`Interaction.response` puts it back).
    let derivesContentLength: Bool
    /// Rows of streamed recordings, which keep their `Content-Length`: whether one was recorded
    /// says how the proxy frames their pieces on replay (`Interaction.storedResponseHeaders`).
    let streamedRows: Set<Int64>
    private var headerBlocks = HeaderBlockCache()
    /// Set when loading for replay: bodies packed into shared blocks (`BodyBlocks`).
    private var bodyBlocks: BodyBlocks?

    init(derivesContentLength: Bool = false, packsBodies: Bool = false, streamedRows: Set<Int64> = []) {
        self.derivesContentLength = derivesContentLength
        self.streamedRows = streamedRows
        bodyBlocks = packsBodies ? BodyBlocks() : nil
    }

    mutating func read(_ row: SQLiteStatement) throws -> Interaction {
        try read(row, cassette: nil, leavingBody: false).interaction
    }

    /// For a replay index: `cassette`, when given, is used instead of reading each row's copy;
    /// `leavingBody` leaves the response body out for the caller to take from the row
    /// (`ReplayAnswerPreparer`). Returns the number of the response header block with it.
    mutating func read(_ row: SQLiteStatement, cassette: String?, leavingBody: Bool) throws -> (interaction: Interaction, responseHeaderBlock: Int) {
        typealias Column = InteractionColumn
        let methodText = row.text(Column.method)
        guard let method = HTTPMethod(rawValue: methodText) else {
            throw SQLiteError.library(.mismatch, "interaction \(row.int64(Column.id)) has an unknown method '\(methodText)'", path: "")
        }
        let responseBody: Data
        let bodyCount: Int
        if leavingBody {
            responseBody = Data()
            bodyCount = row.withBlobBytes(Column.responseBody) { $0.count }
        } else {
            responseBody = bodyBlocks == nil ? row.blob(Column.responseBody) : row.withBlobBytes(Column.responseBody) { bodyBlocks!.copy($0) }
            bodyCount = responseBody.count
        }
        let stripsLength = derivesContentLength && method != .head && (streamedRows.isEmpty || !streamedRows.contains(row.int64(Column.id)))
        let responseHeaders = row.withTextBytes(Column.responseHeaders) { bytes in
            headerBlocks.block(bytes, skipping: stripsLength ? Self.contentLengthLine(in: bytes, equalTo: bodyCount) : nil)
        }
        var interaction = Interaction(
            id: row.int64(Column.id),
            cassette: cassette ?? row.text(Column.cassette),
            method: method,
            url: row.text(Column.url),
            key: row.text(Column.requestKey),
            sequence: row.int(Column.sequence),
            requestHeaders: row.withTextBytes(Column.requestHeaders) { headerBlocks.fields($0) },
            requestBody: row.isNull(Column.requestBody) ? nil : row.blob(Column.requestBody),
            statusCode: row.int(Column.status),
            responseHeaders: responseHeaders.fields,
            responseBody: responseBody,
            contentEncoding: row.optionalText(Column.contentEncoding),
            recordedAt: row.date(Column.recordedAt),
            duration: .clampedMilliseconds(row.double(Column.durationMs))
        )
        if interaction.contentEncoding != nil { interaction.contentEncodingPosition = responseHeaders.decodedEncodingPosition }
        interaction.secretEchoes = responseHeaders.echoes
        return (interaction, responseHeaders.number)
    }

    /// The byte range of the line `Content-Length: N` when N is `length`. `HeaderLines` writes the
    /// field as a line of its own; a byte scan without allocations, since it runs for every row
    /// when a large cassette opens.
    static func contentLengthLine(in bytes: UnsafeBufferPointer<UInt8>, equalTo length: Int) -> Range<Int>? {
        let prefix = contentLengthPrefix
        var start = 0
        while start + prefix.count < bytes.count {
            let lineEnd = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            // Field names are case-insensitive; `| 0x20` lower-cases letters and leaves "-: " alone.
            if bytes[start] | 0x20 == prefix[0], lineEnd - start > prefix.count,
                bytes[start..<(start + prefix.count)].elementsEqual(prefix, by: { $0 | 0x20 == $1 })
            {
                var value = 0
                for byte in bytes[(start + prefix.count)..<lineEnd] {
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), value < Int.max / 10 - 9 else { return nil }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
                guard value == length else { return nil }
                return start..<min(lineEnd + 1, bytes.count)
            }
            start = lineEnd + 1
        }
        return nil
    }

    private static let contentLengthPrefix = Array("content-length: ".utf8)
}
