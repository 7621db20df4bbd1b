#if canImport(CCurl)
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// HTTP/2 header names arrive in lower case; they are stored as an HTTP/1.1 server spells them,
/// so a cassette does not depend on the protocol version the upstream negotiated.
@Suite("Header name case")
struct HeaderNameCaseTests {
    @Test(arguments: [
        ("content-type", "Content-Type"),
        ("x-ratelimit-remaining", "X-Ratelimit-Remaining"),
        ("etag", "ETag"),
        ("www-authenticate", "WWW-Authenticate"),
        ("date", "Date"),
    ])
    func lowerCaseNamesGetTheirHTTP1Spelling(name: String, expected: String) {
        #expect(HeaderNameCase.http1Spelling(of: name) == expected)
    }
}
#endif
