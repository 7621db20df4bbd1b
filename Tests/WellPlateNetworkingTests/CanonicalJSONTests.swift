import Testing
@testable import WellPlateNetworking

@Suite("Canonical JSON")
struct CanonicalJSONTests {
    private static func canonical(_ text: String) -> String? {
        CanonicalJSON.parse(text).map { String(decoding: CanonicalJSON.serialize($0), as: UTF8.self) }
    }

    @Test("numbers are compared by exact decimal value", arguments: [
        ("1", "1"), ("1.0", "1"), ("1e0", "1"), ("10e-1", "1"), ("0.1e1", "1"), ("1.000E+0", "1"),
        ("-0", "0"), ("-0.0e5", "0"), ("0e10", "0"),
        ("100", "100"), ("1e2", "100"), ("2E+3", "2000"), ("-12.50", "-12.5"), ("1.5", "1.5"),
        ("0.001", "0.001"), ("0.000001", "0.000001"), ("1e-7", "1e-7"), ("1.5e-10", "1.5e-10"),
        ("1e20", "100000000000000000000"), ("1e21", "1e21"), ("-1.25e300", "-1.25e300"),
        ("123456789012345678901234567890", "1.2345678901234567890123456789e29"),
        ("0.10000000000000001", "0.10000000000000001"),
        ("9007199254740993", "9007199254740993"),
    ])
    func numbers(input: String, expected: String) {
        #expect(Self.canonical(input) == expected)
    }

    @Test func numbersThatOnlyADoubleWouldMergeStayDifferent() {
        #expect(Self.canonical("0.1") != Self.canonical("0.10000000000000001"))
        #expect(Self.canonical("9007199254740992") != Self.canonical("9007199254740993"))
    }

    @Test("objects are sorted by key bytes and whitespace dropped", arguments: [
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

    @Test("strings are unescaped where JSON allows and control characters escaped", arguments: [
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

    @Test("text that is not JSON is rejected", arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul", "{'a':1}",
        "\"unterminated", "\"tab\there\"", #""\x""#, #""\ud800""#, #""\udc00x""#, "[1] [2]", "1e1000000000", "NaN",
    ])
    func rejected(input: String) {
        #expect(CanonicalJSON.parse(input) == nil)
    }

    @Test func invalidUTF8InsideAStringIsRejected() {
        for bytes: [UInt8] in [[0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xE0, 0x80, 0x80, 0x22]] {
            #expect(bytes.withUnsafeBufferPointer { CanonicalJSON.parse($0) } == nil)
        }
        let valid: [UInt8] = [0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22]
        #expect(valid.withUnsafeBufferPointer { CanonicalJSON.parse($0) } == .string("\u{1F600}"))
    }

    @Test func nestingBeyondTheDepthLimitIsRejectedWithoutCrashing() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(CanonicalJSON.parse(deep) == nil)
        let allowed = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(CanonicalJSON.parse(allowed) != nil)
    }

    @Test func ignoredKeysAreDroppedAtAnyDepth() {
        var text = #"{"ts":1,"meal":{"TS":2,"grams":100},"list":[{"ts":3}]}"#
        let value = text.withUTF8 { CanonicalJSON.parse($0, ignoring: ["ts"]) }
        let canonical = value.map { String(decoding: CanonicalJSON.serialize($0), as: UTF8.self) }
        #expect(canonical == #"{"list":[{}],"meal":{"grams":100}}"#)
    }
}
