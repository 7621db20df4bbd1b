import Foundation
import HTTPTypes

extension Redactor {
    /// `data` with every form of every secret replaced by the placeholder (see `SecretValues` for
    /// the whole-token rule of short ones), byte for byte elsewhere; `data` itself when nothing matched.
    package func scrub(_ data: Data, secrets: SecretValues) -> Data {
        guard isEnabled, !secrets.isEmpty, !data.isEmpty else { return data }
        let forms = secrets.orderedForms
        // Look before copying: most bodies hold no secret, and a large one (a recorded download)
        // must not be held twice in memory just to find that out.
        guard data.withUnsafeBytes({ Self.containsAny(forms, in: $0) }) else { return data }
        let scrubbed = Self.scrub(Array(data), forms: forms)
        return scrubbed.map { Data($0) } ?? data
    }

    /// Whether `scrub(_:forms:)` would replace anything in `bytes`, without copying them.
    static func containsAny(_ forms: [[UInt8]], in bytes: UnsafeRawBufferPointer) -> Bool {
        for form in forms where !form.isEmpty && form.count <= bytes.count {
            let wholeTokenOnly = form.count < SecretValues.substringLength
            let first = form[0]
            var index = 0
            while index <= bytes.count - form.count {
                if bytes[index] == first, form.indices.allSatisfy({ bytes[index + $0] == form[$0] }),
                    !wholeTokenOnly || isTokenBoundary(bytes, before: index, after: index + form.count)
                {
                    return true
                }
                index += 1
            }
        }
        return false
    }

    /// The text with every form of every secret replaced.
    package func scrub(_ text: String, secrets: SecretValues) -> String {
        guard isEnabled, !secrets.isEmpty, !text.isEmpty else { return text }
        guard let scrubbed = Self.scrub(Array(text.utf8), forms: secrets.orderedForms) else { return text }
        return String(decoding: scrubbed, as: UTF8.self)
    }

    /// Header values with the secrets replaced; names are kept.
    package func scrub(_ fields: HTTPFields, secrets: SecretValues) -> HTTPFields {
        guard isEnabled, !secrets.isEmpty else { return fields }
        let forms = secrets.orderedForms
        var result = fields
        for index in result.indices {
            if let scrubbed = Self.scrub(Array(result[index].value.utf8), forms: forms) {
                result[index].value = String(decoding: scrubbed, as: UTF8.self)
            }
        }
        return result
    }

    /// A URL or request target with secrets scrubbed from its path and query only: the scheme and
    /// authority stay, so the request still goes where it went.
    package func scrub(target: String, secrets: SecretValues) -> String {
        guard isEnabled, !secrets.isEmpty else { return target }
        let utf8 = Array(target.utf8)
        var pathStart = 0
        if let schemeEnd = target.range(of: "://") {
            let afterScheme = target.utf8.distance(from: target.startIndex, to: schemeEnd.upperBound)
            pathStart = utf8[afterScheme...].firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) ?? utf8.count
        }
        guard let scrubbed = Self.scrub(Array(utf8[pathStart...]), forms: secrets.orderedForms) else { return target }
        return String(decoding: utf8[..<pathStart] + scrubbed, as: UTF8.self)
    }

    /// `nil` when no form occurs.
    static func scrub(_ bytes: [UInt8], forms: [[UInt8]]) -> [UInt8]? {
        var current = bytes
        var changed = false
        let placeholder = Array(placeholder.utf8)
        for form in forms where !form.isEmpty && form.count <= current.count {
            let wholeTokenOnly = form.count < SecretValues.substringLength
            var output: [UInt8] = []
            var copied = 0
            var index = 0
            let first = form[0]
            let last = current.count - form.count
            while index <= last {
                if current[index] == first, matches(form, in: current, at: index),
                    !wholeTokenOnly || isTokenBoundary(current, before: index, after: index + form.count)
                {
                    if output.isEmpty { output.reserveCapacity(current.count) }
                    output.append(contentsOf: current[copied..<index])
                    output.append(contentsOf: placeholder)
                    index += form.count
                    copied = index
                } else {
                    index += 1
                }
            }
            if copied > 0 {
                output.append(contentsOf: current[copied...])
                current = output
                changed = true
            }
        }
        return changed ? current : nil
    }

    private static func matches(_ form: [UInt8], in bytes: [UInt8], at start: Int) -> Bool {
        for offset in 1..<form.count where bytes[start + offset] != form[offset] { return false }
        return true
    }

    /// Whether a match from `start` to `end` stands as a whole token: no token byte just before
    /// or after it. A percent-escape of a separator just before it counts as that separator:
    /// `?Set-Cookie=sid%3D1234` holds `1234` as a token, where `3D` alone would hide it.
    static func isTokenBoundary<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, before start: Int, after end: Int) -> Bool
    where Bytes.Index == Int {
        let base = bytes.startIndex
        let startsToken = start == 0 || !isTokenByte(bytes[base + start - 1]) || PercentEscape.separator(endingAt: start, in: bytes)
        return startsToken && (end == bytes.count || !isTokenByte(bytes[base + end]))
    }

    /// Letters, digits, `_`, `-` and every byte of a non-ASCII character.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"), 0x80...:
            return true
        default:
            return false
        }
    }
}
