import Foundation
import TestSupport
import Testing

@testable import CassetteTools
@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("Schema diff")
struct SchemaDiffTests {
    /// The parts of a finding a case pins down; the message is checked separately.
    struct Expected: Sendable, Equatable, CustomStringConvertible {
        let path: String
        let rule: SchemaFinding.Rule
        let severity: SchemaFinding.Severity
        let expected: String
        let actual: String

        init(_ path: String, _ rule: SchemaFinding.Rule, _ severity: SchemaFinding.Severity, expected: String, actual: String) {
            self.path = path
            self.rule = rule
            self.severity = severity
            self.expected = expected
            self.actual = actual
        }

        init(_ finding: SchemaFinding) {
            self.init(finding.path.description, finding.rule, finding.severity, expected: finding.expected, actual: finding.actual)
        }

        var description: String { "\(severity) \(path) \(rule) expected=\(expected) actual=\(actual)" }
    }

    struct DiffCase: Sendable, CustomTestStringConvertible {
        let rule: String
        let fixture: [String]
        let api: [String]
        let findings: [Expected]
        var testDescription: String { rule }
    }

    static let uuid1 = #""123e4567-e89b-12d3-a456-426614174000""#
    static let uuid2 = #""0b6f2a9e-9d3c-4f5e-8a7b-1c2d3e4f5a6b""#

    static let diffCases: [DiffCase] = [
        DiffCase(
            rule: "different values of the same shape are no finding",
            fixture: [#"{"id":1,"name":"a","at":"2024-05-01T12:00:00Z","tags":["x"]}"#],
            api: [#"{"id":99,"name":"zzz","at":"2025-01-31T23:59:59.999+01:00","tags":["y","z"]}"#],
            findings: []),
        DiffCase(
            rule: "a fixture field the API never sends is an error",
            fixture: [#"{"id":1,"legacy":"x"}"#], api: [#"{"id":2}"#],
            findings: [Expected("$.legacy", .fieldNotInAPI, .error, expected: "absent", actual: "string")]),
        DiffCase(
            rule: "an API field the fixture lacks is a warning",
            fixture: [#"{"id":1}"#], api: [#"{"id":2,"extra":true}"#, #"{"id":3,"extra":null}"#],
            findings: [Expected("$.extra", .fieldMissingInFixture, .warning, expected: "boolean | null", actual: "absent")]),
        DiffCase(
            rule: "a changed type is an error",
            fixture: [#"{"price":"9.99"}"#], api: [#"{"price":9.99}"#],
            findings: [Expected("$.price", .typeMismatch, .error, expected: "number", actual: "string")]),
        DiffCase(
            rule: "whole numbers in the fixture where the API sends numbers are fine",
            fixture: [#"{"price":10}"#], api: [#"{"price":9.99}"#, #"{"price":3}"#],
            findings: []),
        DiffCase(
            rule: "fractional numbers in the fixture where the API only sends integers are a mismatch",
            fixture: [#"{"count":1.5}"#, #"{"count":2}"#], api: [#"{"count":2}"#],
            findings: [Expected("$.count", .typeMismatch, .error, expected: "integer", actual: "number")]),
        DiffCase(
            rule: "null from the API where the fixture never has null is an error",
            fixture: [#"{"nick":"a"}"#], api: [#"{"nick":"b"}"#, #"{"nick":null}"#],
            findings: [Expected("$.nick", .apiSendsNull, .error, expected: "string | null", actual: "string")]),
        DiffCase(
            rule: "an API field that is always null says nothing about its type",
            fixture: [#"{"deletedAt":"2024-05-01T12:00:00Z"}"#], api: [#"{"deletedAt":null}"#],
            findings: [Expected("$.deletedAt", .apiSendsNull, .error, expected: "null", actual: "string (date-time)")]),
        DiffCase(
            rule: "null in the fixture where the API never sends null is a warning",
            fixture: [#"{"nick":null}"#, #"{"nick":"a"}"#], api: [#"{"nick":"b"}"#],
            findings: [Expected("$.nick", .fixtureHasNull, .warning, expected: "string", actual: "string | null")]),
        DiffCase(
            rule: "a fixture field that is always null is only a null finding",
            fixture: [#"{"nick":null}"#], api: [#"{"nick":"b"}"#],
            findings: [Expected("$.nick", .fixtureHasNull, .warning, expected: "string", actual: "null")]),
        DiffCase(
            rule: "a timestamp in the fixture where the API sends plain strings is a format change",
            fixture: [#"{"created":"2024-05-01T12:00:00Z"}"#], api: [#"{"created":"yesterday"}"#, #"{"created":"2024-05-01T12:00:00Z"}"#],
            findings: [Expected("$.created", .formatChanged, .warning, expected: "string", actual: "string (date-time)")]),
        DiffCase(
            rule: "plain ids in the fixture where the API sends UUIDs are a format change",
            fixture: [#"{"id":"user-1"}"#], api: ["{\"id\":\(uuid1)}", "{\"id\":\(uuid2)}"],
            findings: [Expected("$.id", .formatChanged, .warning, expected: "string (uuid)", actual: "string")]),
        DiffCase(
            rule: "a different top-level type is a root type mismatch and nothing more",
            fixture: [#"{"items":[{"id":1}]}"#], api: ["[1,2]"],
            findings: [Expected("$", .rootTypeMismatch, .error, expected: "array", actual: "object")]),
        DiffCase(
            rule: "a scalar root of another type is a root type mismatch",
            fixture: [#""ok""#], api: ["1"],
            findings: [Expected("$", .rootTypeMismatch, .error, expected: "integer", actual: "string")]),
        DiffCase(
            rule: "each union member the API never sends is its own mismatch",
            fixture: [#"{"v":1}"#, #"{"v":"a"}"#, #"{"v":true}"#], api: [#"{"v":2}"#],
            findings: [
                Expected("$.v", .typeMismatch, .error, expected: "integer", actual: "boolean"),
                Expected("$.v", .typeMismatch, .error, expected: "integer", actual: "string"),
            ]),
        DiffCase(
            rule: "a union on both sides with the same members is no finding",
            fixture: [#"{"v":1}"#, #"{"v":"a"}"#], api: [#"{"v":"b"}"#, #"{"v":2}"#],
            findings: []),
        DiffCase(
            rule: "an API that also sends another type is a mismatch",
            fixture: [#"{"v":"a"}"#], api: [#"{"v":"b"}"#, #"{"v":3}"#],
            findings: [Expected("$.v", .typeMismatch, .error, expected: "integer | string", actual: "string")]),
        DiffCase(
            rule: "a changed type inside array items is reported at [*]",
            fixture: [#"{"items":[{"price":"1"}]}"#], api: [#"{"items":[{"price":1.5},{"price":2}]}"#],
            findings: [Expected("$.items[*].price", .typeMismatch, .error, expected: "number", actual: "string")]),
        DiffCase(
            rule: "an empty fixture array raises no alarm about items",
            fixture: [#"{"items":[]}"#], api: [#"{"items":[{"id":1}]}"#],
            findings: []),
        DiffCase(
            rule: "an empty API array raises no alarm about items",
            fixture: [#"{"items":[{"id":1}]}"#], api: [#"{"items":[]}"#],
            findings: []),
        DiffCase(
            rule: "array elements of different shapes are merged before comparing",
            fixture: [#"{"items":[{"id":1,"name":"a"},{"id":2}]}"#],
            api: [#"{"items":[{"id":1,"name":"x","sku":"s"},{"id":3,"name":"y"}]}"#, #"{"items":[]}"#],
            findings: [Expected("$.items[*].sku", .fieldMissingInFixture, .warning, expected: "string", actual: "absent")]),
        DiffCase(
            rule: "nested arrays compare their items' items",
            fixture: [#"{"m":[[1],[]]}"#], api: [#"{"m":[["a"]]}"#],
            findings: [Expected("$.m[*][*]", .typeMismatch, .error, expected: "string", actual: "integer")]),
        DiffCase(
            rule: "a field the API sometimes omits but every fixture object has is a note",
            fixture: [#"{"id":1,"nick":"a"}"#], api: [#"{"id":1,"nick":"b"}"#, #"{"id":2}"#],
            findings: [Expected("$.nick", .fieldOptionalInAPI, .note, expected: "optional", actual: "required")]),
        DiffCase(
            rule: "a field the API always sends but the fixture sometimes omits is fine",
            fixture: [#"{"id":1,"nick":"a"}"#, #"{"id":2}"#], api: [#"{"id":3,"nick":"b"}"#],
            findings: []),
        DiffCase(
            rule: "keys that are not identifiers use bracket notation",
            fixture: [#"{"first name":"a","e\"x":1}"#], api: [#"{"first name":1,"e\"x":1}"#],
            findings: [Expected(#"$["first name"]"#, .typeMismatch, .error, expected: "integer", actual: "string")]),
        DiffCase(
            rule: "nested objects are compared at any depth",
            fixture: [#"{"user":{"address":{"city":"Oslo"}}}"#], api: [#"{"user":{"address":{"city":{"name":"Oslo"}}}}"#],
            findings: [Expected("$.user.address.city", .typeMismatch, .error, expected: "object", actual: "string")]),
        DiffCase(
            rule: "a null root from the API is reported at $",
            fixture: ["{}"], api: ["{}", "null"],
            findings: [Expected("$", .apiSendsNull, .error, expected: "object | null", actual: "object")]),
        DiffCase(
            rule: "findings sort by path, then rule",
            fixture: [#"{"b":"x","a":1,"c":{"z":1},"v":"s"}"#],
            api: [#"{"b":1,"d":true,"c":{"z":"s"},"v":1}"#, #"{"b":2,"d":false,"c":{"z":"t"},"v":null}"#],
            findings: [
                Expected("$.a", .fieldNotInAPI, .error, expected: "absent", actual: "integer"),
                Expected("$.b", .typeMismatch, .error, expected: "integer", actual: "string"),
                Expected("$.c.z", .typeMismatch, .error, expected: "string", actual: "integer"),
                Expected("$.d", .fieldMissingInFixture, .warning, expected: "boolean", actual: "absent"),
                Expected("$.v", .apiSendsNull, .error, expected: "integer | null", actual: "string"),
                Expected("$.v", .typeMismatch, .error, expected: "integer", actual: "string"),
            ]),
    ]

    @Test("reports exactly the contract changes", arguments: diffCases)
    func reportsFindings(_ testCase: DiffCase) throws {
        let findings = SchemaDiff.compare(
            fixture: try InferredSchema(json: testCase.fixture),
            api: try InferredSchema(json: testCase.api)
        )
        #expect(findings.map(Expected.init) == testCase.findings)
    }

    @Test("finds a change 40 levels deep and names its full path")
    func findsDeepChange() throws {
        let findings = SchemaDiff.compare(
            fixture: try InferredSchema(json: [nestedJSON(depth: 40, leaf: #""x""#)]),
            api: try InferredSchema(json: [nestedJSON(depth: 40, leaf: "1")])
        )
        let path = "$" + String(repeating: ".level", count: 40)
        #expect(findings.map(Expected.init) == [Expected(path, .typeMismatch, .error, expected: "integer", actual: "string")])
    }

    @Test("an empty side has nothing to compare")
    func emptySideIsNoFinding() throws {
        let schema = try InferredSchema(json: ["{}"])
        #expect(SchemaDiff.compare(fixture: InferredSchema(), api: schema).isEmpty)
        #expect(SchemaDiff.compare(fixture: schema, api: InferredSchema()).isEmpty)
    }

    // MARK: Ignore

    static let driftFixture = [#"{"meta":{"requestId":"a","took":1},"items":[{"price":"1","name":"x"}],"first name":"a","updatedAt":"2024-05-01T12:00:00Z"}"#]
    static let driftAPI = [#"{"meta":{"requestId":7,"took":"fast"},"items":[{"price":1.5,"name":"x","sku":"s"}],"first name":1,"updatedAt":"now"}"#]

    struct IgnoreCase: Sendable, CustomTestStringConvertible {
        let patterns: [String]
        let remaining: [String]
        var testDescription: String { patterns.joined(separator: " ") }
    }

    static let allDriftPaths = [#"$["first name"]"#, "$.items[*].price", "$.items[*].sku", "$.meta.requestId", "$.meta.took", "$.updatedAt"]

    static let ignoreCases: [IgnoreCase] = [
        IgnoreCase(patterns: [], remaining: allDriftPaths),
        IgnoreCase(
            patterns: ["$.meta.requestId"],
            remaining: [#"$["first name"]"#, "$.items[*].price", "$.items[*].sku", "$.meta.took", "$.updatedAt"]),
        IgnoreCase(patterns: ["$.meta"], remaining: [#"$["first name"]"#, "$.items[*].price", "$.items[*].sku", "$.updatedAt"]),
        IgnoreCase(patterns: ["$.items[*].price", "$.updatedAt"], remaining: [#"$["first name"]"#, "$.items[*].sku", "$.meta.requestId", "$.meta.took"]),
        IgnoreCase(patterns: ["$.*.requestId"], remaining: [#"$["first name"]"#, "$.items[*].price", "$.items[*].sku", "$.meta.took", "$.updatedAt"]),
        IgnoreCase(patterns: ["$.items.*.price"], remaining: [#"$["first name"]"#, "$.items[*].sku", "$.meta.requestId", "$.meta.took", "$.updatedAt"]),
        IgnoreCase(patterns: ["$.*.*"], remaining: [#"$["first name"]"#, "$.updatedAt"]),
        IgnoreCase(patterns: [#"$["first name"]"#], remaining: ["$.items[*].price", "$.items[*].sku", "$.meta.requestId", "$.meta.took", "$.updatedAt"]),
        IgnoreCase(patterns: ["$.meta.requestId.deeper"], remaining: allDriftPaths),
        IgnoreCase(patterns: ["$.price"], remaining: allDriftPaths),
        IgnoreCase(patterns: ["$"], remaining: []),
    ]

    @Test("drops findings at or under ignored paths", arguments: ignoreCases)
    func ignoresPaths(_ testCase: IgnoreCase) throws {
        let diff = try SchemaDiff(ignoring: testCase.patterns)
        let findings = diff.compare(
            fixture: try InferredSchema(json: Self.driftFixture),
            api: try InferredSchema(json: Self.driftAPI)
        )
        #expect(findings.map(\.path.description) == testCase.remaining)
    }

    struct PathErrorCase: Sendable, CustomTestStringConvertible {
        let pattern: String
        let position: Int
        let reason: String
        var testDescription: String { pattern }
    }

    static let pathErrorCases: [PathErrorCase] = [
        PathErrorCase(pattern: "items.price", position: 0, reason: "a path starts with '$', as in $.items[*].price"),
        PathErrorCase(pattern: "", position: 0, reason: "a path starts with '$', as in $.items[*].price"),
        PathErrorCase(pattern: "$.items[0]", position: 8, reason: "schema paths have no element positions; use [*] for the items of an array"),
        PathErrorCase(pattern: "$.first name", position: 2, reason: #"'first name' is not an identifier; write it as ["first name"]"#),
        PathErrorCase(pattern: "$.", position: 2, reason: "expected a key after '.'"),
        PathErrorCase(pattern: "$x", position: 1, reason: "expected '.' or '[' before the next segment"),
        PathErrorCase(pattern: #"$["a"#, position: 2, reason: #"the quoted key is not closed; add the closing '"'"#),
        PathErrorCase(pattern: #"$["a"x"#, position: 5, reason: "expected ']'"),
        PathErrorCase(pattern: "$[", position: 2, reason: "expected '*' or a quoted key after '['"),
        PathErrorCase(pattern: "$[a]", position: 2, reason: "expected '*' or a key in double quotes after '['"),
    ]

    @Test("rejects malformed ignore paths with the position and what to write instead", arguments: pathErrorCases)
    func rejectsBadPath(_ testCase: PathErrorCase) {
        #expect(throws: JSONPathError(path: testCase.pattern, position: testCase.position, reason: testCase.reason)) {
            try SchemaDiff(ignoring: [testCase.pattern])
        }
    }

    @Test(
        "paths read back from their written form",
        arguments: [
            "$", "$.items[*].price", #"$["first name"].x"#, #"$["a\"b\\c"]"#, "$[*][*]", "$._id9", #"$["9lives"]"#, #"$["é"]"#,
        ])
    func pathRoundTrips(_ text: String) throws {
        #expect(try JSONPath(text).description == text)
    }

    // MARK: Output

    static func sampleFinding() throws -> SchemaFinding {
        try #require(
            SchemaDiff.compare(
                fixture: InferredSchema(json: [#"{"items":[{"price":"1"}]}"#]),
                api: InferredSchema(json: [#"{"items":[{"price":1.5}]}"#])
            ).first)
    }

    @Test("renders a finding as one aligned line")
    func rendersTextLine() throws {
        #expect(try Self.sampleFinding().textLine == "error   $.items[*].price  type changed: fixture has string, API sends number")
    }

    struct MessageCase: Sendable, CustomTestStringConvertible {
        let fixture: String
        let api: [String]
        let line: String
        var testDescription: String { line }
    }

    static let messageCases: [MessageCase] = [
        MessageCase(
            fixture: #"{"a":1,"old":true}"#, api: [#"{"a":1}"#],
            line: "error   $.old  field not in API: fixture has boolean, the API never sends this field"),
        MessageCase(
            fixture: #"{"a":1}"#, api: [#"{"a":1,"new":"x"}"#],
            line: "warning $.new  field missing in fixture: API sends string"),
        MessageCase(
            fixture: #"{"a":"x"}"#, api: [#"{"a":null}"#, #"{"a":"y"}"#],
            line: "error   $.a  API sends null but the fixture never has null; a model must make this optional (API sends string | null)"),
        MessageCase(
            fixture: #"{"a":null}"#, api: [#"{"a":"y"}"#],
            line: "warning $.a  fixture has null but the API never sends null here (API sends string)"),
        MessageCase(
            fixture: #"{"a":"2024-05-01"}"#, api: [#"{"a":"May 1"}"#],
            line: "warning $.a  format changed: fixture has string (date), API sends string"),
        MessageCase(
            fixture: #"{"a":1}"#, api: [#"{"a":1}"#, "{}", "{}"],
            line: "note    $.a  API omits this field in 2 of 3 objects; the fixture always has it"),
        MessageCase(
            fixture: #"{"a":"x"}"#, api: [#"{"a":"y"}"#, #"{"a":[1]}"#],
            line: "error   $.a  type changed: API also sends array, fixture only has string"),
        MessageCase(
            fixture: "[]", api: ["{}"],
            line: "error   $  response type changed: fixture has array, API sends object"),
    ]

    @Test("every rule has a one-line message", arguments: messageCases)
    func rendersMessages(_ testCase: MessageCase) throws {
        let findings = SchemaDiff.compare(
            fixture: try InferredSchema(json: [testCase.fixture]),
            api: try InferredSchema(json: testCase.api)
        )
        #expect(findings.map(\.textLine) == [testCase.line])
    }

    @Test("encodes findings as JSON with stable keys and decodes them back")
    func encodesFindings() throws {
        let finding = try Self.sampleFinding()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode([finding])
        #expect(
            String(decoding: data, as: UTF8.self) == #"""
                [{"actual":"string","expected":"number","message":"type changed: fixture has string, API sends number","path":"$.items[*].price","rule":"typeMismatch","severity":"error"}]
                """#)
        #expect(try JSONDecoder().decode([SchemaFinding].self, from: data) == [finding])
    }

    @Test("severities order note < warning < error, so a threshold keeps the serious ones")
    func severityThreshold() throws {
        #expect(SchemaFinding.Severity.note < .warning)
        #expect(SchemaFinding.Severity.warning < .error)
        let findings = SchemaDiff.compare(
            fixture: try InferredSchema(json: [#"{"a":1,"b":"x","c":true}"#]),
            api: try InferredSchema(json: [#"{"a":1,"b":1,"c":true,"d":true}"#, #"{"b":2,"c":false,"d":false}"#])
        )
        #expect(findings.map(\.severity) == [.note, .error, .warning])
        #expect(findings.filter { $0.severity >= .warning }.map(\.path.description) == ["$.b", "$.d"])
        #expect(findings.filter { $0.severity >= .error }.map(\.path.description) == ["$.b"])
    }

    @Test("every rule carries its documented severity")
    func ruleSeverities() {
        let errors = SchemaFinding.Rule.allCases.filter { $0.severity == .error }
        let warnings = SchemaFinding.Rule.allCases.filter { $0.severity == .warning }
        let notes = SchemaFinding.Rule.allCases.filter { $0.severity == .note }
        #expect(errors == [.fieldNotInAPI, .typeMismatch, .apiSendsNull, .rootTypeMismatch, .statusClassChanged])
        #expect(warnings == [.fieldMissingInFixture, .fixtureHasNull, .formatChanged])
        #expect(notes == [.fieldOptionalInAPI, .fixtureWithoutRecording, .endpointWithoutFixture, .graphQLErrors])
    }
}
