import Foundation
import WellPlateCore

/// The path of a request URL as mock routes see it: split into segments on the raw `/`s first and
/// percent-decoded segment by segment, so an escaped `%2F` stays inside its segment instead of
/// creating a new one. The query and fragment are ignored.
///
/// A trailing slash is kept (`/api/users/` has an empty last segment and is not `/api/users`),
/// unlike `URL.path`, which drops it.
public struct RequestPath: Sendable, Hashable, CustomStringConvertible {
    /// Percent-decoded segments; `/` alone is one empty segment.
    public let segments: [String]

    /// The path of `url`, ignoring its query and fragment.
    public init(url: URL) {
        self.init(percentEncodedPath: url.path(percentEncoded: true))
    }

    /// Parses a path as it appears in a URL (escapes allowed); a missing leading `/` is implied.
    public init(percentEncodedPath path: String) {
        var raw = Substring(path)
        if raw.hasPrefix("/") { raw = raw.dropFirst() }
        segments = raw.split(separator: "/", omittingEmptySubsequences: false).map { Self.percentDecoded($0) }
    }

    /// The decoded path, `/` followed by the segments joined with `/`.
    public var description: String { "/" + segments.joined(separator: "/") }

    /// Decodes `%XX` escapes byte by byte; a `%` that starts no valid escape is kept as it is, and
    /// bytes that are not UTF-8 become U+FFFD rather than failing the whole path.
    static func percentDecoded(_ text: Substring) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        let input = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
                let high = PercentEncoding.hexValue(input[index + 1]), let low = PercentEncoding.hexValue(input[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(input[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
