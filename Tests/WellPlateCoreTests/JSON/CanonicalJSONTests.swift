import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("Canonical JSON")
struct CanonicalJSONTests {
    private static func canonical(_ text: String, ignoring ignoredFields: Set<String> = []) -> String? {
        canonical(Data(text.utf8), ignoring: ignoredFields)
    }

    private static func canonical(_ bytes: Data, ignoring ignoredFields: Set<String> = []) -> String? {
        CanonicalJSON.canonicalText(of: bytes, ignoring: ignoredFields).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test(
        "numbers are written in one canonical decimal form",
        arguments: [
            ("1", "1"), ("1.0", "1"), ("1e0", "1"), ("10e-1", "1"), ("0.1e1", "1"), ("1.000E+0", "1"),
            ("-0", "0"), ("-0.0e5", "0"), ("0e10", "0"),
            ("100", "100"), ("1e2", "100"), ("2E+3", "2000"), ("-12.50", "-12.5"), ("1.5", "1.5"),
            ("0.001", "0.001"), ("0.000001", "0.000001"), ("1e-7", "1e-7"), ("1.5e-10", "1.5e-10"),
            ("1e20", "100000000000000000000"), ("1e21", "1e21"), ("-1.25e300", "-1.25e300"),
            ("123456789012345678901234567890", "1.2345678901234567890123456789e29"),
            ("-98765432109876543210", "-98765432109876543210"),
            ("9007199254740993", "9007199254740993"),
            ("-9223372036854775808", "-9223372036854775808"),
            ("0.1", "0.1"), ("123456789.123456789", "123456789.12345679"),
            ("1.7976931348623157e308", "1.7976931348623157e308"), ("5e-324", "5e-324"), ("1e-400", "0"),
        ])
    func numbers(input: String, expected: String) {
        #expect(Self.canonical(input) == expected)
    }

    @Test func integersStayExactWhileDecimalsAreComparedAsDoubles() {
        #expect(Self.canonical("9007199254740992") != Self.canonical("9007199254740993"))
        #expect(Self.canonical("100000000000000000000001") != Self.canonical("100000000000000000000000"))
        #expect(Self.canonical("0.10000000000000001") == "0.1")
        #expect(Self.canonical("9007199254740993.0") == Self.canonical("9007199254740992"))
    }

    @Test(
        "objects are sorted by key bytes and whitespace dropped",
        arguments: [
            (#" { "b" : 1 , "a" : { "d" : 2.50 , "c" : null } } "#, #"{"a":{"c":null,"d":2.5},"b":1}"#),
            (#"{"B":1,"a":2,"_":3}"#, #"{"B":1,"_":3,"a":2}"#),
            (#"[ 3 , 1 , 2 ]"#, "[3,1,2]"),
            (#"{"a":1,"a":2}"#, #"{"a":2}"#),
            (#"{"é":1,"e":2}"#, #"{"e":2,"é":1}"#),
            ("{}", "{}"),
            ("[]", "[]"),
            (" true ", "true"),
            ("\u{FEFF}{\"a\":false}", #"{"a":false}"#),
        ])
    func structure(input: String, expected: String) {
        #expect(Self.canonical(input) == expected)
    }

    @Test func keysThatDifferOnlyInUnicodeNormalizationStayApart() {
        let canonical = Self.canonical("{\"\u{E9}\":1,\"e\u{301}\":2}")
        #expect(canonical.map { Array($0.utf8) } == Array("{\"e\u{301}\":2,\"\u{E9}\":1}".utf8))
    }

    @Test(
        "strings are unescaped where JSON allows and control characters escaped",
        arguments: [
            (#""\u00e9""#, "\"\u{e9}\""),
            (#""\/""#, #""/""#),
            (#""\ud83d\ude00""#, "\"\u{1F600}\""),
            (#""a\"b\\c""#, #""a\"b\\c""#),
            (#""\u0001\t\n""#, #""\u0001\t\n""#),
            (#""\u0041""#, #""A""#),
        ])
    func strings(input: String, expected: String) {
        #expect(Self.canonical(input) == expected)
    }

    @Test(
        "text that is not JSON is rejected",
        arguments: [
            "", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul", "{'a':1}",
            "\"unterminated", "\"tab\there\"", #""\x""#, #""\ud800""#, #""\udc00x""#, "[1] [2]", "1e1000000000", "NaN",
            "1e400", "[-1.8e308]",
        ])
    func rejected(input: String) {
        #expect(Self.canonical(input) == nil)
    }

    @Test func invalidUTF8InsideAStringIsRejected() {
        for bytes: [UInt8] in [[0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xE0, 0x80, 0x80, 0x22]] {
            #expect(Self.canonical(Data(bytes)) == nil)
        }
        #expect(Self.canonical(Data([0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22])) == "\"\u{1F600}\"")
    }

    @Test func nestingBeyondTheDepthLimitIsRejectedWithoutCrashing() {
        func nested(_ levels: Int) -> String { String(repeating: "[", count: levels) + "1" + String(repeating: "]", count: levels) }
        #expect(Self.canonical(nested(10_000)) == nil)
        #expect(Self.canonical(nested(CanonicalJSON.maximumDepth + 1)) == nil)
        #expect(Self.canonical(nested(CanonicalJSON.maximumDepth)) == nested(CanonicalJSON.maximumDepth))
    }

    @Test func ignoredKeysAreDroppedAtAnyDepth() {
        let text = #"{"ts":1,"meal":{"TS":2,"grams":100},"list":[{"ts":3}]}"#
        #expect(Self.canonical(text, ignoring: ["ts"]) == #"{"list":[{}],"meal":{"grams":100}}"#)
    }

    @Test func aDuplicateOfAnIgnoredKeyIsDroppedToo() {
        #expect(Self.canonical(#"{"ts":1,"a":2,"TS":3,"ts":4}"#, ignoring: ["ts"]) == #"{"a":2}"#)
    }
}
