import Foundation
import HTTPTypes

/// Decoded header blocks by their stored text, looked up straight from the bytes SQLite hands
/// out: a cassette repeats a few blocks over and over, so a row costs one hash and one compare,
/// and neither a `String` nor an allocation unless its block is new.
struct HeaderBlockCache {
    private struct Block {
        let text: [UInt8]
        let fields: HTTPFields
        /// Where `Content-Encoding` stood before the body was decoded (`HeaderLines`).
        let decodedEncodingPosition: Int?
        let echoes: [SecretEcho]
        /// Distinct blocks get distinct numbers, from 0 in the order met.
        let number: Int
    }

    /// By hash; a bucket holds more than one block only on a hash collision.
    private var blocks: [Int: [Block]] = [:]
    private var count = 0
    /// The two blocks met last (a row's request and response headers).
    private var recent: [Block] = []

    /// The fields of `bytes` less the byte range `skipping`.
    mutating func fields(_ bytes: UnsafeBufferPointer<UInt8>, skipping: Range<Int>? = nil) -> HTTPFields {
        block(bytes, skipping: skipping).fields
    }

    /// `fields(_:skipping:)` and the block's number, equal for equal blocks.
    mutating func block(
        _ bytes: UnsafeBufferPointer<UInt8>, skipping: Range<Int>? = nil
    ) -> (fields: HTTPFields, number: Int, decodedEncodingPosition: Int?, echoes: [SecretEcho]) {
        let skipped = skipping ?? bytes.count..<bytes.count
        let head = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<skipped.lowerBound]))
        let tail = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[skipped.upperBound...]))
        // Consecutive rows mostly repeat the blocks of the row before: a compare, no hash.
        for block in recent where Self.equals(block.text, head, tail) {
            return (block.fields, block.number, block.decodedEncodingPosition, block.echoes)
        }
        var hasher = Hasher()
        hasher.combine(bytes: head)
        hasher.combine(bytes: tail)
        let hash = hasher.finalize()
        if let bucket = blocks[hash] {
            for block in bucket where Self.equals(block.text, head, tail) {
                remember(block)
                return (block.fields, block.number, block.decodedEncodingPosition, block.echoes)
            }
        }
        let text = Array(head) + Array(tail)
        let (fields, position, echoes) = HeaderLines.decodeMarked(String(decoding: text, as: UTF8.self))
        let block = Block(text: text, fields: fields, decodedEncodingPosition: position, echoes: echoes, number: count)
        blocks[hash, default: []].append(block)
        remember(block)
        count += 1
        return (fields, count - 1, position, echoes)
    }

    private mutating func remember(_ block: Block) {
        if recent.count == 2 { recent.removeFirst() }
        recent.append(block)
    }

    private static func equals(_ text: [UInt8], _ head: UnsafeRawBufferPointer, _ tail: UnsafeRawBufferPointer) -> Bool {
        guard text.count == head.count + tail.count else { return false }
        return text.withUnsafeBytes { stored in
            (head.isEmpty || memcmp(stored.baseAddress!, head.baseAddress!, head.count) == 0)
                && (tail.isEmpty || memcmp(stored.baseAddress! + head.count, tail.baseAddress!, tail.count) == 0)
        }
    }
}
