import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("Key differences and nearest keys")
struct KeyDifferenceTests {
    private typealias F = RequestKeyFixtures

    private static func describe(_ request: RequestKey, _ recorded: RequestKey) -> [String] {
        KeyDifference(request: request, recorded: recorded).items.map(\.description)
    }

    @Test(
        "differences are described in words",
        arguments: [
            ("GET /api/users", "POST /api/users", ["method GET vs POST"]),
            ("GET /api/users/2", "GET /api/users/3", ["path /api/users/2 vs /api/users/3"]),
            ("GET /a?limit=10", "GET /a?limit=20", ["query parameter limit: 10 vs 20"]),
            ("GET /a?limit=10", "GET /a?limit=10&page=2", ["query parameter page missing"]),
            ("GET /a?debug=1&limit=10", "GET /a?limit=10", ["query parameter debug not recorded"]),
            ("GET /a?id=1&id=2", "GET /a?id=1&id=3", ["query parameter id: [1, 2] vs [1, 3]"]),
            ("GET /a?b=1&a=1", "GET /a?c=1&a=2", ["query parameter a: 1 vs 2", "query parameter b not recorded", "query parameter c missing"]),
            ("POST /a", "POST /a body:sha256:0123456789abcdef", ["body missing"]),
            ("POST /a body:sha256:0123456789abcdef", "POST /a", ["body not recorded"]),
            ("POST /a body:sha256:0123456789abcdef", "POST /a body:sha256:fedcba9876543210", ["body differs"]),
            ("GET https://a.example/x", "GET https://b.example/x", ["host https://a.example vs https://b.example"]),
            ("GET https://a.example/x", "GET /x", ["host https://a.example vs (none)"]),
            ("PUT /a/1?x=1", "POST /a/2?x=2", ["method PUT vs POST", "path /a/1 vs /a/2", "query parameter x: 1 vs 2"]),
            ("GET /a?x=1", "GET /a?x=1", []),
        ])
    func wording(request: String, recorded: String, expected: [String]) throws {
        #expect(Self.describe(try RequestKey(parsing: request), try RequestKey(parsing: recorded)) == expected)
    }

    @Test(
        "JSON bodies name the first differing path",
        arguments: [
            (#"{"grams":100,"food":"apple"}"#, #"{"food":"apple","grams":150}"#, "body differs: $.grams 100 vs 150"),
            (#"{"meal":{"items":[1,2,3]}}"#, #"{"meal":{"items":[1,5,3]}}"#, "body differs: $.meal.items[1] 2 vs 5"),
            (#"{"items":[1,2]}"#, #"{"items":[1,2,3]}"#, "body differs: $.items[2] missing"),
            (#"{"items":[1,2,3]}"#, #"{"items":[1,2]}"#, "body differs: $.items[2] not recorded"),
            (#"{"a":1}"#, #"{"a":1,"note":"x"}"#, "body differs: $.note missing"),
            (#"{"a":1,"extra":true}"#, #"{"a":1}"#, "body differs: $.extra not recorded"),
            (#"{"two words":1}"#, #"{"two words":2}"#, #"body differs: $["two words"] 1 vs 2"#),
            (#"{"a":"x"}"#, #"{"a":{"b":1}}"#, #"body differs: $.a "x" vs {"b":1}"#),
            (#"[1]"#, #"{"a":1}"#, #"body differs: $ [1] vs {"a":1}"#),
            (#"{"password":"one"}"#, #"{"password":"two"}"#, "body differs: $.password differs"),
            (#"{"password":"same","z":1}"#, #"{"password":"same","z":2}"#, "body differs: $.z 1 vs 2"),
            (#"{"grams":1.50,"n":[1e21]}"#, #"{"grams":1.5,"n":[1.0]}"#, "body differs: $.n[0] 1e21 vs 1"),
            (#"{"a":{"Access_Token":{"x":"one"}}}"#, #"{"a":{"Access_Token":{"x":"two"}}}"#, "body differs: $.a.Access_Token differs"),
        ])
    func jsonDetail(request: String, recorded: String, expected: String) {
        let items = Self.describe(F.jsonKey(.post, "/api/meals", request), F.jsonKey(.post, "/api/meals", recorded))
        #expect(items == [expected])
    }

    @Test func longValuesAreShortened() {
        let long = String(repeating: "x", count: 100)
        let items = Self.describe(F.jsonKey(.post, "/a", "{\"a\":\"\(long)\"}"), F.jsonKey(.post, "/a", #"{"a":"y"}"#))
        #expect(items == ["body differs: $.a \"" + String(repeating: "x", count: 38) + "… vs \"y\""])
    }

    @Test(
        "form bodies name the first differing field",
        arguments: [
            ("grams=100&food=apple", "food=apple&grams=150", "body differs: field grams: 100 vs 150"),
            ("a=1", "a=1&b=2", "body differs: field b missing"),
            ("a=1&b=2", "a=1", "body differs: field b not recorded"),
            ("user=ann&password=one", "user=ann&password=two", "body differs: field password differs"),
        ])
    func formDetail(request: String, recorded: String, expected: String) {
        let type = "application/x-www-form-urlencoded"
        let items = Self.describe(
            F.key(.post, "/login", body: request, contentType: type), F.key(.post, "/login", body: recorded, contentType: type)
        )
        #expect(items == [expected])
    }

    @Test func bodiesOfDifferentKindsSayso() {
        let items = Self.describe(
            F.jsonKey(.post, "/a", #"{"a":1}"#), F.key(.post, "/a", body: "a=1", contentType: "application/x-www-form-urlencoded")
        )
        #expect(items == ["body differs: json vs form body"])
    }

    @Test func storedKeysExplainBodiesOnlyWithTheirCanonicalBody() throws {
        let request = F.jsonKey(.post, "/api/meals", #"{"grams":100}"#)
        let recorded = F.jsonKey(.post, "/api/meals", #"{"grams":150}"#)
        let bare = try RequestKey(parsing: recorded.rawValue)
        #expect(Self.describe(request, bare) == ["body differs"])
        let withBody = try RequestKey(parsing: recorded.rawValue, canonicalBody: recorded.canonicalBody)
        #expect(Self.describe(request, withBody) == ["body differs: $.grams 100 vs 150"])
    }

    @Test func descriptionNamesTheRecordedKeyAndItsDifferences() throws {
        let difference = KeyDifference(
            request: try RequestKey(parsing: "GET /api/users?limit=10"), recorded: try RequestKey(parsing: "GET /api/users?limit=20")
        )
        #expect(difference.description == "GET /api/users?limit=20: query parameter limit: 10 vs 20")
        let same = KeyDifference(request: difference.request, recorded: difference.request)
        #expect(same.isIdentical)
        #expect(same.description == "GET /api/users?limit=10: identical")
    }

    // MARK: Nearest

    private static let stored = [
        "DELETE /api/users/2",
        "GET /api/users/2?fields=name",
        "GET /api/users/3",
        "GET /api/foods?q=apple",
        "POST /api/users/2",
        "GET /api/users/2/meals/7",
        "GET /api/users/2?fields=name&verbose=1",
        "GET /",
    ]

    private static func nearest(_ request: String, among stored: [String] = stored, limit: Int = 3) throws -> [String] {
        let candidates = try stored.map { try RequestKey(parsing: $0) }
        return RequestKey.nearest(to: try RequestKey(parsing: request), among: candidates, limit: limit).map(\.recorded.rawValue)
    }

    @Test func sameMethodAndPathRankFirstThenSamePathThenPathDistance() throws {
        #expect(
            try Self.nearest("GET /api/users/2", limit: 5) == [
                "GET /api/users/2?fields=name",
                "GET /api/users/2?fields=name&verbose=1",
                "DELETE /api/users/2",
                "POST /api/users/2",
                "GET /api/users/3",
            ])
    }

    @Test func fewerDifferingQueryParametersRankHigher() throws {
        #expect(
            try Self.nearest("GET /api/users/2?verbose=1", limit: 2) == [
                "GET /api/users/2?fields=name&verbose=1",
                "GET /api/users/2?fields=name",
            ])
    }

    @Test func pathsAreComparedBySegmentEditDistance() throws {
        #expect(
            try Self.nearest("GET /api/users/9/meals/7", limit: 2) == [
                "GET /api/users/2/meals/7",
                "GET /api/users/3",
            ])
    }

    @Test func orderDoesNotDependOnTheOrderOfCandidates() throws {
        let forward = try Self.nearest("GET /api/users/5", limit: 8)
        let backward = try Self.nearest("GET /api/users/5", among: Self.stored.reversed(), limit: 8)
        #expect(forward == backward)
        #expect(forward.count == Self.stored.count)
        #expect(Array(forward.prefix(2)) == ["GET /api/users/3", "DELETE /api/users/2"])
    }

    @Test func limitIsRespectedAndDuplicatesAppearOnce() throws {
        #expect(try Self.nearest("GET /api/users/2", limit: 0).isEmpty)
        #expect(try Self.nearest("GET /api/users/2", among: []).isEmpty)
        #expect(try Self.nearest("GET /x", among: ["GET /a", "GET /a", "GET /b"], limit: 3) == ["GET /a", "GET /b"])
    }

    @Test func anExactMatchComesFirstAndIsIdentical() throws {
        let results = RequestKey.nearest(
            to: try RequestKey(parsing: "GET /api/foods?q=apple"), among: try Self.stored.map { try RequestKey(parsing: $0) }
        )
        #expect(results.first?.isIdentical == true)
        #expect(results.first?.recorded.rawValue == "GET /api/foods?q=apple")
    }

    @Test func nearestExplainsWhatDiffers() throws {
        let results = RequestKey.nearest(
            to: try RequestKey(parsing: "GET /api/users/2?fields=email"), among: try Self.stored.map { try RequestKey(parsing: $0) }, limit: 1
        )
        #expect(results.map(\.description) == ["GET /api/users/2?fields=name: query parameter fields: email vs name"])
    }

    @Test func nearestPrefersADuplicateThatCarriesItsCanonicalBody() throws {
        let request = F.jsonKey(.post, "/api/meals", #"{"grams":100}"#)
        let recorded = F.jsonKey(.post, "/api/meals", #"{"grams":150}"#)
        let bare = try RequestKey(parsing: recorded.rawValue)
        let results = RequestKey.nearest(to: request, among: [bare, recorded])
        #expect(results.map(\.description) == ["\(recorded.rawValue): body differs: $.grams 100 vs 150"])
    }
}
