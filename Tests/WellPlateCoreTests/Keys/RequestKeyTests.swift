import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("Request keys")
struct RequestKeyTests {
    private typealias F = RequestKeyFixtures

    @Test func keyIsMethodAndNormalizedPathAndQueryWithoutHost() {
        let key = F.key(.get, "https://API.example.com/api/users?offset=0&limit=10#page")
        #expect(key.rawValue == "GET /api/users?limit=10&offset=0")
        #expect(key.description == key.rawValue)
        #expect(key.method == .get)
        #expect(key.origin == nil)
        #expect(key.path == "/api/users")
        #expect(key.query == [.init(name: "limit", value: "10"), .init(name: "offset", value: "0")])
        #expect(key.bodyFingerprint == nil)
    }

    @Test func hostIsIncludedOnRequest() {
        let rules = MatchingRules(includeHost: true)
        #expect(F.key(.get, "HTTPS://API.Example.com:443/api/users", rules: rules).rawValue == "GET https://api.example.com/api/users")
        #expect(F.key(.get, "http://localhost:8080/", rules: rules).rawValue == "GET http://localhost:8080/")
    }

    @Test func hostDoesNotMatterByDefault() {
        #expect(F.key(.get, "https://staging.example.com/a") == F.key(.get, "https://api.example.com/a"))
    }

    @Test func bodyFingerprintFollowsTheTarget() throws {
        let key = F.jsonKey(.post, "https://api.example.com/api/meals", #"{"grams":100}"#)
        let fingerprint = try #require(key.bodyFingerprint)
        #expect(key.rawValue == "POST /api/meals body:sha256:\(fingerprint.hex)")
        #expect(fingerprint.hex == F.sha256Prefix(Array(#"{"grams":100}"#.utf8)))
        #expect(key.canonicalBody == CanonicalBody(kind: .json, text: #"{"grams":100}"#))
    }

    @Test(arguments: [HTTPMethod.post, .put, .patch, .delete])
    func methodsWithABodyFingerprintIt(method: HTTPMethod) {
        let first = F.jsonKey(method, "/api/meals/1", #"{"grams":100}"#)
        let reordered = F.jsonKey(method, "/api/meals/1", #"{ "grams" : 100.0 }"#)
        let changed = F.jsonKey(method, "/api/meals/1", #"{"grams":150}"#)
        #expect(first.bodyFingerprint != nil)
        #expect(first == reordered)
        #expect(first != changed)
    }

    @Test(arguments: [HTTPMethod.get, .head, .options])
    func methodsWithoutBodySemanticsIgnoreTheBody(method: HTTPMethod) {
        let key = F.jsonKey(method, "/search", #"{"q":"apple"}"#)
        #expect(key.bodyFingerprint == nil)
        #expect(key == F.key(method, "/search"))
    }

    @Test func deleteWithoutBodyHasNoFingerprint() {
        #expect(F.key(.delete, "/api/meals/1").rawValue == "DELETE /api/meals/1")
    }

    @Test func emptyBodyAndNoBodyGiveTheSameKey() {
        let empty = RequestKey(method: .post, url: URL(string: "/a")!, body: Data())
        let missing = RequestKey(method: .post, url: URL(string: "/a")!, body: nil)
        #expect(empty == missing)
        #expect(empty.rawValue == "POST /a")
    }

    @Test func switchingTheFingerprintOffMakesBodiesIrrelevant() {
        let rules = MatchingRules(includeBodyFingerprint: false)
        let first = F.key(.post, "/a", body: #"{"grams":100}"#, contentType: "application/json", rules: rules)
        let second = F.key(.post, "/a", body: "something else", contentType: "text/plain", rules: rules)
        #expect(first == second)
        #expect(first.rawValue == "POST /a")
        #expect(first.canonicalBody == nil)
    }

    @Test func ignoredParametersDoNotChangeTheKey() {
        let rules = MatchingRules(ignoredQueryParameters: MatchingRules.commonCacheBusters)
        let first = F.key(.get, "/api/foods?q=apple&_=1700000000&cb=abc", rules: rules)
        let second = F.key(.get, "/api/foods?nonce=zz&q=apple", rules: rules)
        #expect(first == second)
        #expect(first.rawValue == "GET /api/foods?q=apple")
    }

    @Test func formBodiesInAnyOrderGiveTheSameKey() {
        let type = "application/x-www-form-urlencoded"
        let first = F.key(.post, "/login", body: "user=ann&remember=1", contentType: type)
        let second = F.key(.post, "/login", body: "remember=1&user=ann", contentType: type)
        #expect(first == second)
        #expect(first.canonicalBody?.text == "remember=1&user=ann")
    }

    @Test func redactedSecretsInTheQueryGiveTheSameKey() throws {
        let redactor = Redactor.default
        let first = redactor.redactedURL(try #require(URL(string: "https://api.example.com/v1/foods?q=apple&api_key=first-secret")))
        let second = redactor.redactedURL(try #require(URL(string: "https://api.example.com/v1/foods?api_key=other-secret&q=apple")))
        let firstKey = RequestKey(method: .get, url: first)
        let secondKey = RequestKey(method: .get, url: second)
        #expect(firstKey == secondKey)
        #expect(firstKey.rawValue == "GET /v1/foods?api_key=REDACTED&q=apple")
        #expect(!firstKey.rawValue.contains("secret"))
    }

    @Test func redactedSecretsInAJSONBodyGiveTheSameKey() {
        let redactor = Redactor.default
        let bodies = [#"{"user":"ann","password":"one"}"#, #"{"password":"two","user":"ann"}"#].map {
            redactor.redact(body: Data($0.utf8), contentType: "application/json")
        }
        let keys = bodies.map {
            RequestKey(method: .post, url: URL(string: "/login")!, headerFields: [.contentType: "application/json"], body: $0)
        }
        #expect(keys[0] == keys[1])
        #expect(keys[0].canonicalBody?.text == #"{"password":"REDACTED","user":"ann"}"#)
    }

    @Test func targetAndURLInitializersAgree() {
        let headers: HTTPFields = [.contentType: "application/json"]
        let body = Data(#"{"a":1}"#.utf8)
        let fromURL = RequestKey(method: .put, url: URL(string: "https://x.example/a/../b?z=1&y=2")!, headerFields: headers, body: body)
        let fromTarget = RequestKey(method: .put, target: "/b?y=2&z=1", headerFields: headers, body: body)
        #expect(fromURL == fromTarget)
    }

    // MARK: Parsing stored keys

    @Test(
        "parsing a key's text gives back the same key and parts",
        arguments: [
            "GET /",
            "GET /api/users?limit=10&offset=0",
            "GET /a?flag=&q=a%20b&x=2&x=1",
            "DELETE /api/meals/1",
            "POST /api/meals body:sha256:0123456789abcdef",
            "PATCH https://api.example.com:8443/v1/x?a=1 body:sha256:fedcba9876543210",
            "OPTIONS http://[::1]:8080/",
            "GET //b",
        ])
    func roundTrip(text: String) throws {
        let key = try RequestKey(parsing: text)
        #expect(key.rawValue == text)
        let again = try #require(RequestKey(rawValue: key.rawValue))
        #expect(again == key)
        #expect(again.method == key.method)
        #expect(again.origin == key.origin)
        #expect(again.path == key.path)
        #expect(again.query == key.query)
        #expect(again.bodyFingerprint == key.bodyFingerprint)
    }

    @Test func computedKeysRoundTripThroughTheirText() throws {
        let keys = [
            F.jsonKey(.post, "https://api.example.com/api/meals?b=1&a=2", #"{"grams":100}"#),
            F.key(.get, "https://api.example.com/caf%c3%a9/./x?q=a+b&flag", rules: MatchingRules(includeHost: true)),
            F.key(.put, "/upload", body: "\u{0}\u{1}binary", contentType: "application/octet-stream"),
        ]
        for key in keys {
            let parsed = try RequestKey(parsing: key.rawValue)
            #expect(parsed == key)
            #expect(parsed.path == key.path)
            #expect(parsed.query == key.query)
            #expect(parsed.origin == key.origin)
            #expect(parsed.bodyFingerprint == key.bodyFingerprint)
        }
    }

    @Test func handTypedKeysAreNormalized() throws {
        let key = try RequestKey(parsing: "get /a/./b?z=1&a=x+y body:sha256:0123456789ABCDEF")
        #expect(key.rawValue == "GET /a/b?a=x%20y&z=1 body:sha256:0123456789abcdef")
    }

    @Test(
        "text that is not a key is rejected with the reason",
        arguments: [
            ("", "expected a method, one space and a target"),
            ("GET", "expected a method, one space and a target"),
            ("GET  /a", "expected a method, one space and a target"),
            ("GET /a body:sha256:0123456789abcdef extra", "expected a method, one space and a target"),
            ("FETCH /a", "unknown method FETCH"),
            ("GET api/users", "is neither a path starting with / nor scheme://host/path"),
            ("GET /a body:md5:0123456789abcdef", "is not a body fingerprint"),
            ("GET /a body:sha256:xyz", "is not a body fingerprint"),
        ])
    func invalidText(text: String, problem: String) {
        #expect(RequestKey(rawValue: text) == nil)
        do {
            _ = try RequestKey(parsing: text)
            Issue.record("parsed \(text)")
        } catch {
            #expect(error.problem.contains(problem))
            #expect(error.description.hasPrefix("invalid request key \"\(text)\": "))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func aCanonicalBodyIsAcceptedOnlyWhenItMatchesTheFingerprint() throws {
        let key = F.jsonKey(.post, "/api/meals", #"{"grams":100}"#)
        let body = try #require(key.canonicalBody)
        let parsed = try RequestKey(parsing: key.rawValue, canonicalBody: body)
        #expect(parsed.canonicalBody == body)
        #expect(throws: RequestKeyError.self) {
            try RequestKey(parsing: key.rawValue, canonicalBody: CanonicalBody(kind: .json, text: #"{"grams":150}"#))
        }
        #expect(throws: RequestKeyError.self) {
            try RequestKey(parsing: "GET /api/meals", canonicalBody: body)
        }
    }

    // MARK: Codable

    @Test func keysEncodeAsTheirText() throws {
        let key = F.jsonKey(.post, "/api/meals", #"{"grams":100}"#)
        let data = try JSONEncoder().encode([key])
        #expect(try JSONDecoder().decode([String].self, from: data) == [key.rawValue])
        #expect(try JSONDecoder().decode([RequestKey].self, from: data) == [key])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([RequestKey].self, from: Data(#"["FETCH /a"]"#.utf8)) }
    }

    @Test func rulesRoundTripThroughJSONAndDefaultMissingFields() throws {
        let rules = MatchingRules(
            ignoredQueryParameters: ["Timestamp", "_"], ignoredBodyFields: ["nonce"], includeBodyFingerprint: false, includeHost: true
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(rules)
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"ignoredBodyFields":["nonce"],"ignoredQueryParameters":["_","timestamp"],"includeBodyFingerprint":false,"includeHost":true}"#)
        #expect(try JSONDecoder().decode(MatchingRules.self, from: data) == rules)
        #expect(try JSONDecoder().decode(MatchingRules.self, from: Data("{}".utf8)) == .default)
    }

    @Test func ruleNamesAreStoredLowerCased() {
        var rules = MatchingRules(ignoredQueryParameters: ["CB"])
        rules.ignoredQueryParameters.insert("TimeStamp")
        rules.ignoredBodyFields = ["Request_ID"]
        #expect(rules.ignoredQueryParameters == ["cb", "timestamp"])
        #expect(rules.ignoredBodyFields == ["request_id"])
        #expect(rules == MatchingRules(ignoredQueryParameters: ["cb", "timestamp"], ignoredBodyFields: ["request_id"]))
    }

    @Test func defaultRulesMatchTheDocumentedDefaults() {
        let rules = MatchingRules.default
        #expect(rules.ignoredQueryParameters.isEmpty)
        #expect(rules.ignoredBodyFields.isEmpty)
        #expect(rules.includeBodyFingerprint)
        #expect(!rules.includeHost)
    }
}

/// Found by scripts/fuzz.sh: a host with bytes that must be escaped gave a key whose text, read
/// back, had another origin (its escapes lower-cased).
@Suite("Request key origins read back unchanged")
struct RequestKeyOriginFuzzRegressionTests {
    @Test(arguments: ["tp://12\u{0}\u{0}\u{C4}:8081/", "http://a%ef%BF%bd.example/", "http://EXAMPLE.com%2e/x", "http://h%zz/"])
    func theKeyTextParsesBackToTheSameKey(target: String) throws {
        let key = RequestKey(method: .post, target: target, rules: MatchingRules(includeHost: true))
        #expect(try RequestKey(parsing: key.rawValue).rawValue == key.rawValue)
        #expect(!key.rawValue.contains("%ef"), "escapes keep upper-case hex: \(key.rawValue)")
    }
}
