import NIOCore
import NIOHTTP1

/// One fully received HTTP request, as the route handlers see it.
struct Request: Sendable {
    var method: HTTPMethod
    /// The request target exactly as received, query included.
    var uri: String
    /// The path part of `uri`, still percent-encoded.
    var path: String
    /// The path split at `/`, each segment percent-decoded; empty segments are dropped.
    var pathSegments: [String]
    /// Query parameters in received order, percent-decoded.
    var query: [(name: String, value: String)]
    var headers: HTTPHeaders
    var body: [UInt8]
    /// Values of the route's `{parameter}` segments, in order; filled in by the router.
    var pathParameters: [String] = []

    init(head: HTTPRequestHead, body: [UInt8]) {
        method = head.method
        uri = head.uri
        headers = head.headers
        self.body = body
        let target = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = target.first.map(String.init) ?? ""
        pathSegments = path.split(separator: "/").map { PercentDecoding.decode($0) }
        query = target.count > 1 ? Self.parseQuery(target[1]) : []
    }

    /// The first value of a query parameter.
    func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// An optional non-negative integer query parameter; `nil` when absent.
    func nonNegativeInteger(_ name: String, max: Int = .max) throws(APIFailure) -> Int? {
        guard let raw = queryValue(name) else { return nil }
        guard let value = Int(raw), value >= 0, value <= max else {
            let range = max == .max ? "a non-negative integer" : "an integer from 0 to \(max)"
            throw .badRequest("Query parameter \"\(name)\" must be \(range), got \"\(raw)\"")
        }
        return value
    }

    /// A non-negative integer query parameter with a default.
    func nonNegativeInteger(_ name: String, default fallback: Int, max: Int = .max) throws(APIFailure) -> Int {
        try nonNegativeInteger(name, max: max) ?? fallback
    }

    private static func parseQuery(_ query: Substring) -> [(name: String, value: String)] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? PercentDecoding.decode(parts[1]) : ""
            return (PercentDecoding.decode(parts[0]), value)
        }
    }
}

/// RFC 3986 percent-decoding; malformed escapes and non-UTF-8 results are kept as received.
enum PercentDecoding {
    static func decode(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hexValue(iterator[iterator.startIndex]),
                let low = hexValue(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator.removeFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? String(text)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
