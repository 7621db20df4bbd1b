import Foundation
import HTTPTypes
import Testing

@testable import WellPlateCore

/// The proxy's own address in a request becomes `cassette-proxy.invalid` in every spelling a
/// client writes it in, and nothing else changes; answers get the address back.
@Suite("The proxy's own address")
struct OwnAddressTests {
    let own = OwnAddress(port: 8080)

    @Test(arguments: [
        ("/cb?u=http://127.0.0.1:8080/x", "/cb?u=http://cassette-proxy.invalid/x"),
        ("/cb?u=http%3A%2F%2F127.0.0.1%3A8080%2Fx", "/cb?u=http%3A%2F%2Fcassette-proxy.invalid%2Fx"),
        ("/cb?u=http%3a%2f%2flocalhost%3a8080%2fx", "/cb?u=http%3a%2f%2fcassette-proxy.invalid%2fx"),
        ("/cb?u=http%3A%2F%2F127%2E0%2E0%2E1%3A8080%2Fx", "/cb?u=http%3A%2F%2Fcassette-proxy.invalid%2Fx"),
        ("/r?u=%2Fredirect%3Fu%3Dhttp%253A%252F%252F127.0.0.1%253A8080%252Fhtml", "/r?u=%2Fredirect%3Fu%3Dhttp%253A%252F%252Fcassette-proxy.invalid%252Fhtml"),
        (#"{"u":"http:\/\/LOCALHOST:8080\/x","v":"http://[::1]:8080"}"#, #"{"u":"http:\/\/cassette-proxy.invalid\/x","v":"http://cassette-proxy.invalid"}"#),
    ])
    func everySpellingBecomesThePlaceholder(_ sent: String, _ stored: String) {
        #expect(own.placeholding(sent) == stored)
    }

    @Test(arguments: [
        "/items/8080", "/cb?u=http://127.0.0.1:80801/x", "/cb?u=http://127.0.0.1:808/x", "/cb?u=http://example.com:8080/x",
        "/cb?u=127.0.0.1:8080", "/cb?u=http%3A%2F%2F127.0.0.1%3A80800", "",
    ])
    func anythingElseIsLeftAlone(_ sent: String) {
        #expect(own.placeholding(sent) == nil)
    }

    @Test func theAddressGoesBackSpelledAsItsSurroundings() {
        let authority = "127.0.0.1:9999"
        #expect(OwnAddress.restoring("http://cassette-proxy.invalid/x", authority: authority) == "http://127.0.0.1:9999/x")
        #expect(OwnAddress.restoring("u=http%3A%2F%2Fcassette-proxy.invalid%2Fx", authority: authority) == "u=http%3A%2F%2F127.0.0.1%3A9999%2Fx")
        #expect(OwnAddress.restoring("u=http%253a%252f%252fcassette-proxy.invalid", authority: authority) == "u=http%253a%252f%252f127.0.0.1%253a9999")
        #expect(OwnAddress.restoring(#""http:\/\/cassette-proxy.invalid\/x""#, authority: authority) == #""http:\/\/127.0.0.1:9999\/x""#)
        #expect(OwnAddress.restoring("nothing here", authority: authority) == nil)
    }

    @Test func aRequestKeepsItsUpstreamAuthorityAndLengthFollowsInAResponse() {
        let request = TransportRequest(
            method: .post, url: URL(string: "http://127.0.0.1:8080/token?u=http://127.0.0.1:8080/cb")!, headerFields: [.referer: "http://localhost:8080/page"],
            body: Data("redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Fcb".utf8))
        let keyed = own.placeholding(request)
        #expect(keyed.url.absoluteString == "http://127.0.0.1:8080/token?u=http://cassette-proxy.invalid/cb")
        #expect(keyed.headerFields[.referer] == "http://cassette-proxy.invalid/page")
        #expect(keyed.body == Data("redirect_uri=http%3A%2F%2Fcassette-proxy.invalid%2Fcb".utf8))

        let response = TransportResponse(
            statusCode: 302, headerFields: [.location: "http://127.0.0.1:8080/cb", .contentLength: "24"], body: Data("go http://127.0.0.1:8080".utf8))
        let stored = own.placeholding(response)
        #expect(stored.headerFields[.location] == "http://cassette-proxy.invalid/cb")
        #expect(stored.body == Data("go http://cassette-proxy.invalid".utf8))
        #expect(stored.headerFields[.contentLength] == String(stored.body.count))
    }

    @Test func aRecordingHoldingThePlaceholderIsFound() {
        var recording = Interaction(cassette: "dev", method: .get, url: "/", key: "GET /", statusCode: 200, responseBody: Data("x".utf8))
        #expect(!OwnAddress.occurs(inResponseOf: recording))
        recording.responseBody = Data((String(repeating: "c", count: 100) + "http://cassette-proxy.invalid/").utf8)
        #expect(OwnAddress.occurs(inResponseOf: recording))
        recording.responseBody = Data()
        recording.responseHeaders[.location] = "http://cassette-proxy.invalid/cb"
        #expect(OwnAddress.occurs(inResponseOf: recording))
    }
}
