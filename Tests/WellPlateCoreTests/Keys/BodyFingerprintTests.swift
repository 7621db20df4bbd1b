import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("Body fingerprint")
struct BodyFingerprintTests {
    private typealias F = RequestKeyFixtures

    @Test(
        "JSON key order and whitespace do not change the fingerprint",
        arguments: [
            (#"{"food":"apple","grams":100,"tags":["a","b"]}"#, #" { "tags" : [ "a" , "b" ] ,"grams":100 , "food":"apple" }"#),
            (#"{"grams":100}"#, "{\n  \"grams\": 100.0\n}\n"),
            (#"{"name":"caf\u00e9"}"#, "{\"name\":\"caf\u{e9}\"}"),
            (#"{"a":{"y":1,"x":2}}"#, #"{"a":{"x":2,"y":1}}"#),
        ])
    func jsonVariants(first: String, second: String) throws {
        let left = try #require(F.fingerprint(first, contentType: "application/json"))
        let right = try #require(F.fingerprint(second, contentType: "application/json"))
        #expect(left.hex == right.hex)
        #expect(left.canonical == right.canonical)
    }

    @Test(
        "different JSON values give different fingerprints",
        arguments: [
            (#"{"grams":100}"#, #"{"grams":150}"#),
            (#"{"grams":100}"#, #"{"grams":"100"}"#),
            (#"{"tags":["a","b"]}"#, #"{"tags":["b","a"]}"#),
            (#"{"a":null}"#, "{}"),
            (#"{"a":true}"#, #"{"a":1}"#),
            (#"{"name":"A"}"#, #"{"name":"a"}"#),
        ])
    func jsonDifferences(first: String, second: String) throws {
        let left = try #require(F.fingerprint(first, contentType: "application/json"))
        let right = try #require(F.fingerprint(second, contentType: "application/json"))
        #expect(left.hex != right.hex)
    }

    /// Keys already in cassette stores (the committed cassettes.db among them) must keep matching.
    @Test(
        "fingerprints of stored recordings stay the same",
        arguments: [
            (#"{"name":"Katherine Johnson","email":"katherine@example.com","role":"member"}"#, "de50765e86d23e38"),
            (#"{"role":"admin"}"#, "78f00e6526ea5134"),
            (#"{"food":"banana","grams":120}"#, "e5b1bafba432c327"),
        ])
    func storedFingerprints(body: String, hex: String) throws {
        #expect(try #require(F.fingerprint(body, contentType: "application/json")).hex == hex)
    }

    @Test func canonicalJSONIsKeptAndHashed() throws {
        let result = try #require(F.fingerprint(#"{ "b": 2.50, "a": [1, 2] }"#, contentType: "application/json"))
        #expect(result.canonical == CanonicalBody(kind: .json, text: #"{"a":[1,2],"b":2.5}"#))
        #expect(result.hex == F.sha256Prefix(Array(#"{"a":[1,2],"b":2.5}"#.utf8)))
    }

    @Test(
        "JSON is recognized by Content-Type, or by parsing when there is none",
        arguments: [
            "application/json", "application/json; charset=utf-8", "Application/JSON", "application/vnd.api+json",
            "application/problem+json ; charset=utf-8", nil,
        ] as [String?])
    func jsonDetection(contentType: String?) throws {
        let result = try #require(F.fingerprint(#"{ "b":1, "a":2 }"#, contentType: contentType))
        #expect(result.canonical?.kind == .json)
        #expect(result.hex == F.sha256Prefix(Array(#"{"a":2,"b":1}"#.utf8)))
    }

    @Test func jsonUnderAnotherContentTypeIsHashedRaw() throws {
        let body = #"{ "b":1, "a":2 }"#
        let result = try #require(F.fingerprint(body, contentType: "text/plain"))
        #expect(result.canonical == nil)
        #expect(result.hex == F.sha256Prefix(Array(body.utf8)))
    }

    @Test func declaredJSONThatDoesNotParseIsHashedRaw() throws {
        let body = #"{"grams": 100,"#
        let result = try #require(F.fingerprint(body, contentType: "application/json"))
        #expect(result.canonical == nil)
        #expect(result.hex == F.sha256Prefix(Array(body.utf8)))
    }

    @Test func textWithoutContentTypeThatIsNotJSONIsHashedRaw() throws {
        let result = try #require(F.fingerprint("true story", contentType: nil))
        #expect(result.canonical == nil)
        #expect(result.hex == F.sha256Prefix(Array("true story".utf8)))
    }

    @Test(
        "form bodies are normalized and sorted like queries",
        arguments: [
            ("b=2&a=1", "a=1&b=2"),
            ("a=1+2&b=%7e", "a=1%202&b=~"),
            ("a=1%202", "a=1%202"),
            ("x=2&a=0&x=1", "a=0&x=2&x=1"),
            ("flag&a=1&", "a=1&flag="),
        ])
    func formBodies(body: String, canonical: String) throws {
        let result = try #require(F.fingerprint(body, contentType: "application/x-www-form-urlencoded; charset=utf-8"))
        #expect(result.canonical == CanonicalBody(kind: .form, text: canonical))
        #expect(result.hex == F.sha256Prefix(Array(canonical.utf8)))
    }

    @Test func formBodiesWithDifferentValuesDiffer() throws {
        let type = "application/x-www-form-urlencoded"
        let left = try #require(F.fingerprint("a=1&b=2", contentType: type))
        let right = try #require(F.fingerprint("a=1&b=3", contentType: type))
        let plus = try #require(F.fingerprint("a=1%2B2", contentType: type))
        let space = try #require(F.fingerprint("a=1+2", contentType: type))
        #expect(left.hex != right.hex)
        #expect(plus.hex != space.hex)
    }

    @Test func binaryBodiesAreHashedByteForByte() throws {
        let bytes: [UInt8] = [0x00, 0xFF, 0x10, 0x80, 0x7B]
        let result = try #require(F.fingerprint(Data(bytes), contentType: "application/octet-stream"))
        #expect(result.canonical == nil)
        #expect(result.hex == F.sha256Prefix(bytes))
        let other = try #require(F.fingerprint(Data(bytes.dropLast()), contentType: "application/octet-stream"))
        #expect(other.hex != result.hex)
        let untyped = try #require(F.fingerprint(Data(bytes), contentType: nil))
        #expect(untyped.hex == result.hex)
    }

    @Test func rawFingerprintIsTheSHA256PrefixOfTheBody() throws {
        let result = try #require(F.fingerprint("abc", contentType: "text/plain"))
        #expect(result.hex == "ba7816bf8f01cfea")
        #expect(BodyFingerprint(hex: "ba7816bf8f01cfea")?.description == "sha256:ba7816bf8f01cfea")
    }

    @Test func emptyAndMissingBodiesHaveNoFingerprint() {
        #expect(BodyFingerprint.make(body: nil, contentType: "application/json") == nil)
        #expect(BodyFingerprint.make(body: Data(), contentType: "application/json") == nil)
    }

    @Test func ignoredBodyFieldsAreLeftOut() throws {
        let rules = MatchingRules(ignoredBodyFields: ["client_timestamp", "Request_ID"])
        let json = try #require(
            F.fingerprint(
                #"{"grams":100,"client_timestamp":1700000000,"meta":{"request_id":"x1"}}"#, contentType: "application/json", rules: rules
            ))
        let otherJSON = try #require(
            F.fingerprint(
                #"{"grams":100,"client_timestamp":1800000000,"meta":{"request_id":"y2"}}"#, contentType: "application/json", rules: rules
            ))
        #expect(json.hex == otherJSON.hex)
        #expect(json.canonical?.text == #"{"grams":100,"meta":{}}"#)
        let form = try #require(F.fingerprint("grams=100&request_id=7", contentType: "application/x-www-form-urlencoded", rules: rules))
        #expect(form.canonical?.text == "grams=100")
    }

    @Test func longCanonicalBodiesAreHashedButNotKept() throws {
        let long = "{\"text\":\"" + String(repeating: "x", count: CanonicalBody.retainedLengthLimit) + "\"}"
        let result = try #require(F.fingerprint(long, contentType: "application/json"))
        #expect(result.canonical == nil)
        #expect(result.hex == F.sha256Prefix(Array(long.utf8)))
    }

    @Test("fingerprint text must be 16 hex digits", arguments: ["", "abc", "ba7816bf8f01cfe", "ba7816bf8f01cfeaa", "ga7816bf8f01cfea"])
    func invalidHex(hex: String) {
        #expect(BodyFingerprint(hex: hex) == nil)
    }

    @Test func fingerprintHexIsStoredLowerCase() {
        #expect(BodyFingerprint(hex: "BA7816BF8F01CFEA")?.hex == "ba7816bf8f01cfea")
    }
}

/// Found by scripts/fuzz.sh: an integer of 22 digits or more is canonical in exponent notation, which
/// parses back as a double, so two different ones once produced no explanation for their difference.
@Suite("Body differences beyond double precision")
struct BodyDifferenceFuzzRegressionTests {
    @Test func integersThatRoundToOneDoubleStillDiffer() {
        let request = CanonicalBody(kind: .json, text: #"{"n":1.2345678901234567890123456789e29}"#)
        let recorded = CanonicalBody(kind: .json, text: #"{"n":1.2345678901234567890123456788e29}"#)
        #expect(BodyDifference.describe(request: request, recorded: recorded) == "$ differs in a number beyond double precision")
        #expect(BodyDifference.describe(request: request, recorded: request) == nil)
    }
}
