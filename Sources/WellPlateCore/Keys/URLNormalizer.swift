import Foundation

/// A request URL reduced to what a request key compares. Produced by `URLNormalizer`.
package struct NormalizedTarget: Sendable, Hashable {
    /// `scheme://host[:port]`, lower-cased, default port and user info dropped; `nil` when the target
    /// was origin-form (`/path?query`).
    package var origin: String?
    /// Never empty, always starts with `/`, no dot-segments, percent-encoding normalized.
    package var path: String
    /// Sorted by name (byte order of the normalized name); repeated names keep their relative order.
    package var query: [RequestKey.QueryParameter]
    /// `path`, followed by `?` and the query when there is at least one parameter.
    package var pathAndQuery: String
}

/// Normalizes URLs and request targets by scanning their bytes once; see docs/matching.md for the rules.
/// Used on the proxy's hot path, so it never goes through `URLComponents`.
package enum URLNormalizer {
    /// Normalizes an absolute URL (`https://host/path?query`) or a relative one (`/path?query`).
    /// Query parameters in `rules.ignoredQueryParameters` are left out.
    package static func normalize(_ url: URL, rules: MatchingRules = .default) -> NormalizedTarget {
        normalize(target: url.absoluteString, rules: rules)
    }

    /// Normalizes a request target as it appears on an HTTP/1.1 request line: origin-form
    /// (`/path?query`) or absolute-form (`https://host/path?query`).
    package static func normalize(target: String, rules: MatchingRules = .default) -> NormalizedTarget {
        var text = target
        return text.withUTF8 { normalize(bytes: $0, ignoring: rules.ignoredQueryParameters) }
    }

    static func normalize(bytes: UnsafeBufferPointer<UInt8>, ignoring: Set<String>) -> NormalizedTarget {
        var index = 0
        var origin: String?
        if let schemeEnd = schemeEnd(bytes) {
            let authorityStart = schemeEnd + 3
            var authorityEnd = authorityStart
            while authorityEnd < bytes.count, !isPathTerminator(bytes[authorityEnd], includingSlash: true) {
                authorityEnd += 1
            }
            origin = makeOrigin(
                scheme: UnsafeBufferPointer(rebasing: bytes[0..<schemeEnd]),
                authority: UnsafeBufferPointer(rebasing: bytes[authorityStart..<authorityEnd])
            )
            index = authorityEnd
        }
        var pathEnd = index
        while pathEnd < bytes.count, !isPathTerminator(bytes[pathEnd], includingSlash: false) {
            pathEnd += 1
        }
        var text = normalizedPath(UnsafeBufferPointer(rebasing: bytes[index..<pathEnd]))
        let path = String(decoding: text, as: UTF8.self)
        var query: [RequestKey.QueryParameter] = []
        if pathEnd < bytes.count, bytes[pathEnd] == UInt8(ascii: "?") {
            var queryEnd = pathEnd + 1
            while queryEnd < bytes.count, bytes[queryEnd] != UInt8(ascii: "#") { queryEnd += 1 }
            let normalized = normalizedFormEncoded(
                UnsafeBufferPointer(rebasing: bytes[(pathEnd + 1)..<queryEnd]), ignoring: ignoring
            )
            if !normalized.text.isEmpty {
                text.append(UInt8(ascii: "?"))
                text.append(contentsOf: normalized.text)
                query = normalized.parameters
            }
        }
        return NormalizedTarget(
            origin: origin, path: path, query: query, pathAndQuery: String(decoding: text, as: UTF8.self)
        )
    }

    // MARK: Path

    /// Percent-encoding normalized segment by segment, then dot-segments removed as in RFC 3986
    /// §5.2.4 (escaped dots count, because `%2E` is unreserved and decoded first).
    static func normalizedPath(_ path: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var output = [UInt8]()
        output.reserveCapacity(path.count + 1)
        // Where each kept segment's leading "/" sits in `output`, so ".." can drop the last one.
        var segmentStarts = [Int]()
        guard !path.isEmpty else { return [slash] }
        var start = path.first == slash ? 1 : 0
        while true {
            var end = start
            while end < path.count, path[end] != slash { end += 1 }
            let isLast = end >= path.count
            let segmentStart = output.count
            output.append(slash)
            PercentEncoding.appendNormalized(
                UnsafeBufferPointer(rebasing: path[start..<end]), to: &output, plusIsSpace: false
            )
            let length = output.count - segmentStart - 1
            let isDot = length == 1 && output[segmentStart + 1] == dot
            let isDotDot = length == 2 && output[segmentStart + 1] == dot && output[segmentStart + 2] == dot
            if isDot || isDotDot {
                output.removeSubrange(segmentStart...)
                if isDotDot, let previous = segmentStarts.popLast() {
                    output.removeSubrange(previous...)
                }
                if isLast {
                    segmentStarts.append(output.count)
                    output.append(slash)
                }
            } else {
                segmentStarts.append(segmentStart)
            }
            if isLast { break }
            start = end + 1
        }
        return output.isEmpty ? [slash] : output
    }

    // MARK: Query and form bodies

    /// Splits `name=value&...`, normalizes each name and value (`+` is a space), drops empty pairs
    /// and ignored names, and sorts stably by name. A name without `=` becomes `name=`.
    static func normalizedFormEncoded(
        _ input: UnsafeBufferPointer<UInt8>, ignoring: Set<String>
    ) -> (parameters: [RequestKey.QueryParameter], text: [UInt8]) {
        let ampersand = UInt8(ascii: "&"), equals = UInt8(ascii: "=")
        var names = [[UInt8]](), values = [[UInt8]]()
        var start = 0
        while start <= input.count {
            var end = start
            while end < input.count, input[end] != ampersand { end += 1 }
            if end > start {
                var separator = start
                while separator < end, input[separator] != equals { separator += 1 }
                var name = [UInt8]()
                PercentEncoding.appendNormalized(
                    UnsafeBufferPointer(rebasing: input[start..<separator]), to: &name, plusIsSpace: true
                )
                if !MatchingRules.isListed(normalizedName: name[...], in: ignoring) {
                    var value = [UInt8]()
                    if separator < end {
                        PercentEncoding.appendNormalized(
                            UnsafeBufferPointer(rebasing: input[(separator + 1)..<end]), to: &value, plusIsSpace: true
                        )
                    }
                    names.append(name)
                    values.append(value)
                }
            }
            start = end + 1
        }
        guard !names.isEmpty else { return ([], []) }
        let order = names.indices.sorted { lhs, rhs in
            if names[lhs] == names[rhs] { return lhs < rhs }
            return names[lhs].lexicographicallyPrecedes(names[rhs])
        }
        var parameters = [RequestKey.QueryParameter]()
        parameters.reserveCapacity(order.count)
        var text = [UInt8]()
        for index in order {
            if !text.isEmpty { text.append(ampersand) }
            text.append(contentsOf: names[index])
            text.append(equals)
            text.append(contentsOf: values[index])
            parameters.append(
                RequestKey.QueryParameter(
                    name: String(decoding: names[index], as: UTF8.self),
                    value: String(decoding: values[index], as: UTF8.self)
                ))
        }
        return (parameters, text)
    }

    // MARK: Scheme and authority

    /// The index of the `:` of `scheme://`, or `nil` when the target has no scheme and authority.
    private static func schemeEnd(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = bytes.first, isASCIILetter(first) else { return nil }
        var index = 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ":") {
                let hasSlashes =
                    index + 2 < bytes.count
                    && bytes[index + 1] == UInt8(ascii: "/") && bytes[index + 2] == UInt8(ascii: "/")
                return hasSlashes ? index : nil
            }
            guard
                isASCIILetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            else {
                return nil
            }
            index += 1
        }
        return nil
    }

    private static func makeOrigin(scheme: UnsafeBufferPointer<UInt8>, authority: UnsafeBufferPointer<UInt8>) -> String {
        var output = [UInt8]()
        output.reserveCapacity(scheme.count + authority.count + 3)
        appendLowercased(scheme, to: &output)
        let schemeLength = output.count
        output.append(contentsOf: "://".utf8)
        // User info (`user:password@`) never reaches a key.
        var hostStart = 0
        for index in authority.indices where authority[index] == UInt8(ascii: "@") { hostStart = index + 1 }
        var hostEnd = hostStart
        if hostStart < authority.count, authority[hostStart] == UInt8(ascii: "[") {
            while hostEnd < authority.count, authority[hostEnd] != UInt8(ascii: "]") { hostEnd += 1 }
            hostEnd = min(hostEnd + 1, authority.count)
        } else {
            while hostEnd < authority.count, authority[hostEnd] != UInt8(ascii: ":") { hostEnd += 1 }
        }
        appendLowercased(UnsafeBufferPointer(rebasing: authority[hostStart..<hostEnd]), to: &output)
        if hostEnd < authority.count, authority[hostEnd] == UInt8(ascii: ":") {
            var port = Array(authority[(hostEnd + 1)...])
            if port.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                while port.count > 1, port.first == UInt8(ascii: "0") { port.removeFirst() }
            }
            let schemeName = output[0..<schemeLength]
            let isDefault =
                (port.elementsEqual("80".utf8) && (schemeName.elementsEqual("http".utf8) || schemeName.elementsEqual("ws".utf8)))
                || (port.elementsEqual("443".utf8) && (schemeName.elementsEqual("https".utf8) || schemeName.elementsEqual("wss".utf8)))
            if !port.isEmpty, !isDefault {
                output.append(UInt8(ascii: ":"))
                port.withUnsafeBufferPointer { appendLowercased($0, to: &output) }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// ASCII letters lower-cased; bytes that may not appear literally are escaped, so a key stays
    /// free of spaces even for a malformed host. An escape already there keeps upper-case hex, as the
    /// ones written here have: otherwise a key's origin would change when its text is read back
    /// (found by scripts/fuzz.sh).
    private static func appendLowercased(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if byte == PercentEncoding.percent, index + 1 < bytes.endIndex,
                let high = PercentEncoding.hexValue(bytes[index]), let low = PercentEncoding.hexValue(bytes[index + 1])
            {
                PercentEncoding.appendEscaped(high << 4 | low, to: &output)
                index += 2
            } else if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") {
                output.append(byte + 0x20)
            } else if PercentEncoding.byteClass(byte) == .escaped, byte != UInt8(ascii: "["), byte != UInt8(ascii: "]"),
                byte != PercentEncoding.percent
            {
                PercentEncoding.appendEscaped(byte, to: &output)
            } else {
                output.append(byte)
            }
        }
    }

    @inline(__always)
    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    @inline(__always)
    private static func isPathTerminator(_ byte: UInt8, includingSlash: Bool) -> Bool {
        byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || (includingSlash && byte == UInt8(ascii: "/"))
    }
}
