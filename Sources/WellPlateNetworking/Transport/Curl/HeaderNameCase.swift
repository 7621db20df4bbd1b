#if canImport(CCurl)
import WellPlateCore

/// HTTP/2 and HTTP/3 require lower-case header names, HTTP/1.1 servers nearly always send
/// `Content-Type`. Responses are stored and replayed the same way whichever version the upstream
/// negotiated, so lower-case names are given their usual HTTP/1.1 spelling.
enum HeaderNameCase {
    /// `content-type` → `Content-Type`, `etag` → `ETag`; names are case-insensitive, so this only
    /// changes how they look.
    static func http1Spelling(of name: String) -> String {
        if let irregular = irregular[name] { return irregular }
        return name.split(separator: "-", omittingEmptySubsequences: false)
            .map { $0.prefix(1).uppercased() + $0.dropFirst() }
            .joined(separator: "-")
    }

    /// Registered names whose usual spelling is not one capital per word.
    private static let irregular: [String: String] = [
        "etag": "ETag",
        "www-authenticate": "WWW-Authenticate",
        "content-md5": "Content-MD5",
        "dnt": "DNT",
        "te": "TE",
        "x-xss-protection": "X-XSS-Protection",
        "x-ua-compatible": "X-UA-Compatible",
        "x-request-id": "X-Request-ID",
    ]
}
#endif
