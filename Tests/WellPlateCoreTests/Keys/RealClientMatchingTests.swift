import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// Keys for what real clients send: multipart uploads with random boundaries, conditional
/// requests, and headers named in `matchedHeaders`.
@Suite("Matching real clients")
struct RealClientMatchingTests {
    private func key(_ upload: (contentType: String, body: Data), rules: MatchingRules = .default) -> RequestKey {
        RequestKey(method: .post, target: "/api/upload", headerFields: [.contentType: upload.contentType], body: upload.body, rules: rules)
    }

    @Test func multipartBodiesAreKeyedByPartsNotByBoundary() throws {
        let first = key(MultipartUpload.make(boundary: "----WebKitFormBoundary7MA4YWxkTrZu0gW"))
        let second = key(MultipartUpload.make(boundary: "a1b2c3"))
        #expect(first == second)
        let canonical = try #require(first.canonicalBody)
        #expect(canonical.kind == .multipart)
        #expect(
            canonical.text.hasPrefix(
                "multipart/form-data\nname=\"caption\"; type=text/plain; value=\"Lunch\"\nname=\"photo\"; filename=\"meal.jpg\"; type=image/jpeg; sha256="))
        #expect(canonical.text.hasSuffix("; bytes=600"))

        #expect(key(MultipartUpload.make(boundary: "x", caption: "Dinner")) != first)
        #expect(key(MultipartUpload.make(boundary: "x", file: Data(repeating: 8, count: 600))) != first)
        #expect(key(MultipartUpload.make(boundary: "x", filename: "other.jpg")) != first)
        // An ignored field is left out like a JSON field would be.
        let ignoring = MatchingRules(ignoredBodyFields: ["caption"])
        #expect(key(MultipartUpload.make(boundary: "x", caption: "Dinner"), rules: ignoring) == key(MultipartUpload.make(boundary: "y"), rules: ignoring))
    }

    @Test func aMultipartDifferenceIsNamedByPart() {
        let request = key(MultipartUpload.make(boundary: "x", caption: "Dinner"))
        let recorded = key(MultipartUpload.make(boundary: "y"))
        let difference = KeyDifference(request: request, recorded: recorded)
        #expect(
            difference.items == [
                .body(detail: "part 1: name=\"caption\"; type=text/plain; value=\"Dinner\" vs name=\"caption\"; type=text/plain; value=\"Lunch\"")
            ])
    }

    @Test func conditionalHeadersArePartOfTheKey() throws {
        let plain = RequestKey(method: .get, target: "/api/etag")
        let conditional = RequestKey(method: .get, target: "/api/etag", headerFields: [.ifNoneMatch: "\"v1\""])
        #expect(plain.rawValue == "GET /api/etag")
        #expect(conditional.rawValue == "GET /api/etag h:if-none-match=\"v1\"")
        let dated = RequestKey(method: .get, target: "/api/etag", headerFields: [.ifModifiedSince: "Sat, 01 Jan 2000 00:00:00 GMT"])
        #expect(dated.rawValue == "GET /api/etag h:if-modified-since=Sat,%2001%20Jan%202000%2000:00:00%20GMT")
        // Stored key text parses back to the same key, headers included.
        #expect(try RequestKey(parsing: dated.rawValue) == dated)
        #expect(try RequestKey(parsing: dated.rawValue).headers == [KeyedHeader(name: "if-modified-since", value: "Sat,%2001%20Jan%202000%2000:00:00%20GMT")])
        #expect(KeyDifference(request: plain, recorded: conditional).items == [.header(name: "if-none-match", request: nil, recorded: "\"v1\"")])
    }

    @Test func matchedHeadersArePartOfTheKeyInNameOrder() throws {
        let rules = MatchingRules(matchedHeaders: ["Accept-Language", "Accept"])
        let key = RequestKey(
            method: .get, target: "/api/negotiate", headerFields: [.acceptLanguage: "fr", .accept: "application/json", .userAgent: "x"], rules: rules)
        #expect(key.rawValue == "GET /api/negotiate h:accept=application/json h:accept-language=fr")
        #expect(RequestKey(method: .get, target: "/api/negotiate", headerFields: [.acceptLanguage: "fr"]).rawValue == "GET /api/negotiate")
        #expect(try RequestKey(parsing: "POST /a body:sha256:0123456789abcdef h:accept=text/html").headers == [KeyedHeader(name: "accept", value: "text/html")])
    }

    @Test func theFormatVersionWasBumpedSoStoredKeysAreRecomputed() {
        // 3 for multipart parts and keyed headers; 4 for GraphQL operations (GraphQLKeyTests);
        // 5 for GraphQL's empty variables, keyed as absent; 6 for X-APOLLO-OPERATION-NAME.
        #expect(RequestKey.formatVersion == 6)
    }
}
