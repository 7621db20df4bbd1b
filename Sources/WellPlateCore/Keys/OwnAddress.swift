import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The proxy's own origin as a client writes it into a request (an OAuth `redirect_uri`, a
/// callback URL header, a redirect target in a query): `http://127.0.0.1:PORT` or
/// `http://localhost:PORT`, plain, percent-encoded once or twice, or with JSON's `\/`. The
/// recorder stores and keys such a request with `cassette-proxy.invalid` in place of the
/// address, and replay does the same with its own port before matching and puts its own address
/// back into answers that held the placeholder, so a recording made on one port replays on any
/// other. A request without the address is left byte for byte as it is, so its key never changes.
package struct OwnAddress: Sendable, Hashable {
    /// What stands for the proxy's `HOST:PORT` in the store: a name under `.invalid` (RFC 2606),
    /// which no real host has.
    package static let placeholderHost = "cassette-proxy.invalid"

    /// The port of the listener the request came in on.
    package let port: Int
    private let portDigits: [UInt8]

    package init(port: Int) {
        self.port = port
        portDigits = Array(String(port).utf8)
    }

    /// Hosts that name the proxy on any loopback listener.
    private static let hosts: [[UInt8]] = ["127.0.0.1", "localhost", "[::1]"].map { Array($0.utf8) }

    // MARK: Requests: the address to the placeholder

    /// `bytes` with every occurrence of this address (after a `//` in one of its spellings)
    /// replaced by the placeholder host; `nil` when it does not occur.
    package func placeholding(_ bytes: some Collection<UInt8>) -> [UInt8]? {
        // Nearly every request: the port's digits are nowhere, and nothing is copied.
        let mayHold = bytes.withContiguousStorageIfAvailable { Self.contains(portDigits, in: UnsafeRawBufferPointer($0)) }
        guard mayHold != false else { return nil }
        let bytes = Array(bytes)
        guard bytes.count >= portDigits.count + 4, Self.firstIndex(of: portDigits, in: bytes, from: 0) != nil else { return nil }
        let placeholder = Array(Self.placeholderHost.utf8)
        var output: [UInt8] = []
        var copied = 0
        var index = 0
        while index < bytes.count {
            if let (start, end) = ownAuthority(in: bytes, at: index) {
                output.append(contentsOf: bytes[copied..<start])
                output.append(contentsOf: placeholder)
                index = end
                copied = end
            } else {
                index += 1
            }
        }
        guard copied > 0 else { return nil }
        output.append(contentsOf: bytes[copied...])
        return output
    }

    /// `placeholding(_:)` of a body, which is looked at in place before anything is copied.
    package func placeholding(_ data: Data) -> [UInt8]? {
        guard data.withUnsafeBytes({ Self.contains(portDigits, in: $0) }) else { return nil }
        return placeholding(Array(data))
    }

    /// The text with the address replaced, or `nil` when it does not occur.
    package func placeholding(_ text: String) -> String? {
        placeholding(text.utf8).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The request as it is keyed and stored: the address replaced in its URL's path and query
    /// (not its authority: that is the upstream's), its header values and its body.
    package func placeholding(_ request: TransportRequest) -> TransportRequest {
        var result = request
        let url = request.url.absoluteString
        let pathStart = Self.pathStart(of: url)
        if let rest = placeholding(url.utf8.dropFirst(pathStart)) {
            result.url = URL(string: String(decoding: url.utf8.prefix(pathStart), as: UTF8.self) + String(decoding: rest, as: UTF8.self)) ?? request.url
        }
        result.headerFields = placeholding(request.headerFields) ?? request.headerFields
        if let body = request.body, let replaced = placeholding(body) { result.body = Data(replaced) }
        return result
    }

    /// The response as it is stored: the address replaced in its headers and body (a server that
    /// sends the client's `redirect_uri` back, in `Location` or a page).
    package func placeholding(_ response: TransportResponse) -> TransportResponse {
        var result = response
        result.headerFields = placeholding(response.headerFields) ?? response.headerFields
        if let body = placeholding(response.body) {
            result.body = Data(body)
            if result.headerFields[.contentLength] != nil { result.headerFields[.contentLength] = String(body.count) }
        }
        return result
    }

    /// Header values with the address replaced; `nil` when none held it.
    package func placeholding(_ fields: HTTPFields) -> HTTPFields? {
        var result: HTTPFields?
        for index in fields.indices {
            guard let value = placeholding(fields[index].value.utf8) else { continue }
            if result == nil { result = fields }
            result![index].value = String(decoding: value, as: UTF8.self)
        }
        return result
    }

    /// Where the path starts in an absolute URL (0 for a request target).
    private static func pathStart(of url: String) -> Int {
        let utf8 = Array(url.utf8)
        guard let scheme = url.range(of: "://") else { return 0 }
        let afterScheme = url.utf8.distance(from: url.startIndex, to: scheme.upperBound)
        return utf8[afterScheme...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? utf8.count
    }

    /// Where `HOST:PORT` starts and ends when `//HOST:PORT` (each byte as it is or
    /// percent-encoded once or twice, a `/` also as JSON's `\/`) starts at `index` and no digit
    /// follows the port.
    private func ownAuthority(in bytes: [UInt8], at index: Int) -> (start: Int, end: Int)? {
        var position = index
        for _ in 0..<2 {
            guard let length = Self.spelled(UInt8(ascii: "/"), in: bytes, at: position) else { return nil }
            position += length
        }
        let start = position
        for host in Self.hosts {
            position = start
            guard host.allSatisfy({ byte in Self.spelled(byte, in: bytes, at: position).map { position += $0 } != nil }),
                let colon = Self.spelled(UInt8(ascii: ":"), in: bytes, at: position)
            else { continue }
            position += colon
            guard portDigits.allSatisfy({ byte in Self.spelled(byte, in: bytes, at: position).map { position += $0 } != nil }) else { continue }
            if let next = Self.decoded(in: bytes, at: position), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) { continue }
            return (start, position)
        }
        return nil
    }

    /// How many bytes at `index` spell `byte` (letters in any case): the byte itself, `%HH`,
    /// `%25HH`, or for `/` JSON's `\/`.
    private static func spelled(_ byte: UInt8, in bytes: [UInt8], at index: Int) -> Int? {
        guard index < bytes.count else { return nil }
        if sameIgnoringCase(bytes[index], byte) { return 1 }
        if byte == UInt8(ascii: "/"), bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == byte { return 2 }
        guard bytes[index] == UInt8(ascii: "%") else { return nil }
        if let value = hex(bytes, at: index + 1) {
            if sameIgnoringCase(value, byte) { return 3 }
            if value == UInt8(ascii: "%"), let twice = hex(bytes, at: index + 3), sameIgnoringCase(twice, byte) { return 5 }
        }
        return nil
    }

    /// The byte at `index`, decoded once or twice when it is an escape.
    private static func decoded(in bytes: [UInt8], at index: Int) -> UInt8? {
        guard index < bytes.count else { return nil }
        guard bytes[index] == UInt8(ascii: "%"), let value = hex(bytes, at: index + 1) else { return bytes[index] }
        return value == UInt8(ascii: "%") ? hex(bytes, at: index + 3) ?? value : value
    }

    private static func hex(_ bytes: [UInt8], at index: Int) -> UInt8? {
        guard index + 1 < bytes.count, let high = PercentEncoding.hexValue(bytes[index]), let low = PercentEncoding.hexValue(bytes[index + 1]) else {
            return nil
        }
        return high << 4 | low
    }

    private static func sameIgnoringCase(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || (a | 0x20 == b | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20))
    }

    // MARK: Answers: the placeholder to the address

    /// `bytes` with every placeholder host replaced by `authority` (`127.0.0.1:8080`, the
    /// address this client reached the proxy at), its `:` spelled as the `//` before it is; and
    /// where each replacement stood and how much it changed the length. `nil` when none occurs.
    package static func restoring(_ bytes: some Collection<UInt8>, authority: String) -> (bytes: [UInt8], shifts: [(offset: Int, shift: Int)])? {
        let bytes = Array(bytes)
        let placeholder = Array(placeholderHost.utf8)
        guard let first = firstIndex(of: placeholder, in: bytes, from: 0) else { return nil }
        let authorityBytes = Array(authority.utf8)
        let colon = authorityBytes.lastIndex(of: UInt8(ascii: ":")).flatMap { index in
            authorityBytes[index...].dropFirst().allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ? index : nil
        }
        var output: [UInt8] = []
        var shifts: [(offset: Int, shift: Int)] = []
        var copied = 0
        var next: Int? = first
        while let index = next {
            var replacement = authorityBytes
            if let colon {
                replacement = Array(authorityBytes[..<colon]) + colonSpelling(before: index, in: bytes) + authorityBytes[(colon + 1)...]
            }
            output.append(contentsOf: bytes[copied..<index])
            shifts.append((index, replacement.count - placeholder.count))
            output.append(contentsOf: replacement)
            copied = index + placeholder.count
            next = firstIndex(of: placeholder, in: bytes, from: copied)
        }
        output.append(contentsOf: bytes[copied...])
        return (output, shifts)
    }

    /// The `:` before the port, spelled as the `/` before `index` is: `%3A` after `%2F`, `%253a`
    /// after `%252f`, else as it is.
    private static func colonSpelling(before index: Int, in bytes: [UInt8]) -> [UInt8] {
        for (slash, colon) in [("%252F", "%253A"), ("%252f", "%253a"), ("%2F", "%3A"), ("%2f", "%3a")] {
            let slash = Array(slash.utf8)
            if index >= slash.count, bytes[(index - slash.count)..<index].elementsEqual(slash) { return Array(colon.utf8) }
        }
        return [UInt8(ascii: ":")]
    }

    /// The text with the placeholder replaced, or `nil` when it does not occur.
    package static func restoring(_ text: String, authority: String) -> String? {
        restoring(text.utf8, authority: authority).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// Whether a recording's response holds the placeholder (in a header value or its body).
    /// Asked of every recording while a cassette loads: `memchr` and `memcmp`, not a loop in Swift
    /// (`memmem` is a GNU extension that Glibc's module does not export).
    package static func occurs(inResponseOf recording: Interaction) -> Bool {
        recording.responseHeaders.contains { $0.value.utf8.withContiguousStorageIfAvailable(occurs) ?? occurs(Array($0.value.utf8)) }
            || recording.responseBody.withUnsafeBytes { occurs($0.assumingMemoryBound(to: UInt8.self)) }
    }

    private static func occurs(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        contains(Array(placeholderHost.utf8), in: UnsafeRawBufferPointer(bytes))
    }

    private static func contains(_ pattern: [UInt8], in bytes: UnsafeRawBufferPointer) -> Bool {
        guard let first = pattern.first, bytes.count >= pattern.count, let base = bytes.baseAddress else { return false }
        return pattern.withUnsafeBytes { pattern in
            var start = base
            let last = base + (bytes.count - pattern.count)
            while start <= last, let found = memchr(start, Int32(first), last - start + 1) {
                if memcmp(found, pattern.baseAddress!, pattern.count) == 0 { return true }
                start = UnsafeRawPointer(found) + 1
            }
            return false
        }
    }

    private static func occurs(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer(occurs)
    }

    // MARK: Bytes

    private static func firstIndex<Bytes: RandomAccessCollection<UInt8>>(of pattern: [UInt8], in bytes: Bytes, from start: Int) -> Int?
    where Bytes.Index == Int {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        var index = start
        let base = bytes.startIndex
        while index <= bytes.count - pattern.count {
            if bytes[base + index] == first {
                var offset = 1
                while offset < pattern.count && bytes[base + index + offset] == pattern[offset] { offset += 1 }
                if offset == pattern.count { return index }
            }
            index += 1
        }
        return nil
    }
}
