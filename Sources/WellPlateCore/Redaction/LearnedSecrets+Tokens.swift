import Foundation
import HTTPTypes

/// The bytes a learned value may consist of, in three widths, because the same value is cut off
/// differently by where it stands: in a path `/` ends it, in a query `=` and `&` do, in a header or
/// a JSON string only quotes, spaces and separators do.
enum TokenBytes {
    /// Letters, digits and `-._~%` (percent-encoded forms stay whole).
    static func isNarrow(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"): true
        default: false
        }
    }

    /// Letters, digits and `-._~`: RFC 3986's unreserved bytes, which a percent-escape of
    /// anything else (`%3D`) separates from.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        byte != UInt8(ascii: "%") && isNarrow(byte)
    }

    /// Narrow, and base64's `+` and `=`: a value in a path segment.
    static func isSegment(_ byte: UInt8) -> Bool {
        isNarrow(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "=")
    }

    /// Segment bytes and `/`: a base64 value in a header or a body.
    static func isWide(_ byte: UInt8) -> Bool {
        isSegment(byte) || byte == UInt8(ascii: "/")
    }
}

extension LearnedSecrets {
    /// `bytes` with every learned value that stands there as a whole token replaced by the
    /// placeholder, or `nil` when none does. Recording and replay call this on the same
    /// redacted request, so both replace the same tokens.
    package func scrub(_ bytes: [UInt8]) -> [UInt8]? {
        guard !isEmpty, bytes.count >= Self.minimumLength else { return nil }
        let salted = self.salted
        var matches: [Range<Int>] = []
        bytes.withUnsafeBytes { raw in
            for range in Self.candidates(in: raw) {
                let token = UnsafeRawBufferPointer(rebasing: raw[range])
                if salted.contains(where: { $0.digests.contains($0.digest(token)) }) { matches.append(range) }
            }
        }
        guard !matches.isEmpty else { return nil }
        matches.sort { $0.lowerBound != $1.lowerBound ? $0.lowerBound < $1.lowerBound : $0.upperBound > $1.upperBound }
        let placeholder = Array(Redactor.placeholder.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var position = 0
        for match in matches where match.lowerBound >= position {
            result += bytes[position..<match.lowerBound]
            result += placeholder
            position = match.upperBound
        }
        result += bytes[position...]
        return result
    }

    package func scrub(_ text: String) -> String {
        guard !isEmpty, let scrubbed = scrub(Array(text.utf8)) else { return text }
        return String(decoding: scrubbed, as: UTF8.self)
    }

    package func scrub(_ data: Data) -> Data {
        guard !isEmpty, let scrubbed = scrub([UInt8](data)) else { return data }
        return Data(scrubbed)
    }

    /// Header values scrubbed; names are kept.
    package func scrub(_ fields: HTTPFields) -> HTTPFields {
        guard !isEmpty else { return fields }
        var result = fields
        for index in result.indices {
            if let scrubbed = scrub(Array(result[index].value.utf8)) { result[index].value = String(decoding: scrubbed, as: UTF8.self) }
        }
        return result
    }

    /// A URL or request target scrubbed in its path and query; scheme and authority stay.
    package func scrub(target: String) -> String {
        guard !isEmpty else { return target }
        var start = target.startIndex
        if let scheme = target.range(of: "://") {
            start = target[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? target.endIndex
        }
        guard let scrubbed = scrub(Array(target[start...].utf8)) else { return target }
        return String(target[..<start]) + String(decoding: scrubbed, as: UTF8.self)
    }

    /// Every stretch of `bytes` a learned value could be: maximal runs of each width of token
    /// bytes, the same without trailing dots, and what follows the first `=` in a run
    /// (`name=value` in a query or a cookie).
    static func candidates(in bytes: UnsafeRawBufferPointer) -> Set<Range<Int>> {
        var ranges = Set<Range<Int>>()
        for isToken in [TokenBytes.isNarrow, TokenBytes.isSegment, TokenBytes.isWide] {
            var index = 0
            while index < bytes.count {
                guard isToken(bytes[index]) else {
                    index += 1
                    continue
                }
                let start = index
                while index < bytes.count, isToken(bytes[index]) { index += 1 }
                add(start..<index, to: &ranges)
                // A token that ends a sentence: "session abc123." carries `abc123`.
                var end = index
                while end > start, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
                if end < index { add(start..<end, to: &ranges) }
                if let equals = bytes[start..<index].firstIndex(of: UInt8(ascii: "=")) {
                    add((equals + 1)..<index, to: &ranges)
                }
                addEscapeSeparated(start..<index, in: bytes, to: &ranges)
            }
        }
        return ranges
    }

    /// A run that holds percent-escaped separators (`sid%3DVALUE%3B%20Path%3D%2F`, a cookie
    /// written into a query value): each stretch between them, and each stretch from one to the
    /// run's end (the value may hold escapes itself, `VALUE%2Fmore`).
    private static func addEscapeSeparated(_ run: Range<Int>, in bytes: UnsafeRawBufferPointer, to ranges: inout Set<Range<Int>>) {
        guard run.count > minimumLength, bytes[run].contains(UInt8(ascii: "%")) else { return }
        let escapes = PercentEscape.separators(in: bytes, run)
        guard !escapes.isEmpty else { return }
        let starts = [run.lowerBound] + escapes.map { $0 + 3 }
        let ends = escapes + [run.upperBound]
        for (start, end) in zip(starts, ends) where start < end {
            add(start..<end, to: &ranges)
            add(start..<run.upperBound, to: &ranges)
        }
    }

    private static func add(_ range: Range<Int>, to ranges: inout Set<Range<Int>>) {
        if range.count >= minimumLength { ranges.insert(range) }
    }
}
