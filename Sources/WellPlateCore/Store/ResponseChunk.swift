import Foundation

/// One piece of a streamed response body as it arrived: when (after the response head) and how
/// many bytes. Replay sends a streamed recording's body in these pieces, at these times when asked.
public struct ResponseChunk: Sendable, Equatable {
    /// Time since the response head arrived.
    public var offset: Duration
    /// The piece's length in bytes.
    public var size: Int

    /// A piece of `size` bytes that arrived `offset` after the response head.
    public init(offset: Duration, size: Int) {
        self.offset = offset
        self.size = size
    }
}

extension ResponseChunk {
    /// Stored as text, `milliseconds:size` per chunk, separated by commas: compact, and readable
    /// with the sqlite3 shell.
    static func encode(_ chunks: [ResponseChunk]) -> String {
        chunks.map { "\(($0.offset.fractionalMilliseconds * 10).rounded() / 10):\($0.size)" }.joined(separator: ",")
    }

    /// `nil` for text that is not a chunk list (a damaged row replays unchunked).
    static func decode(_ text: String) -> [ResponseChunk]? {
        var chunks: [ResponseChunk] = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: ":")
            guard parts.count == 2, let milliseconds = Double(parts[0]), milliseconds >= 0, let size = Int(parts[1]), size >= 0 else { return nil }
            chunks.append(ResponseChunk(offset: .clampedMilliseconds(milliseconds), size: size))
        }
        return chunks.isEmpty ? nil : chunks
    }

    /// The byte ranges of a body of `count` bytes in the recorded pieces. A body whose length
    /// changed since (redaction) ends where it ends; bytes past the recorded sizes go with the last piece.
    package static func pieces(ofBodyCount count: Int, by chunks: [ResponseChunk]) -> [(offset: Duration, bytes: Range<Int>)] {
        var pieces: [(offset: Duration, bytes: Range<Int>)] = []
        var start = 0
        for (index, chunk) in chunks.enumerated() {
            guard start < count else { break }
            let end = index == chunks.count - 1 ? count : min(count, start + chunk.size)
            if end > start { pieces.append((chunk.offset, start..<end)) }
            start = end
        }
        return pieces
    }
}
