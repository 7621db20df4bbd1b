import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `DriftReport`: matching fixtures to recorded endpoints, the notes for unmatched sides, ignore
/// patterns, two-recording checks, and the JSON shape tools read.
@Suite("drift reports")
struct DriftReportTests {
    static func fixture(_ name: String, _ json: String) throws -> FixtureFile {
        FixtureFile(name: name, value: try JSONValue(parsing: json))
    }

    static let recordedUsers = EndpointSchemas(interactions: [
        Recordings.make(.get, "/api/users/1", body: Recordings.json(#"{"id":1,"name":"Ada","age":36}"#)),
        Recordings.make(.get, "/api/users/2", body: Recordings.json(#"{"id":2,"name":"Alan","age":41}"#)),
        Recordings.make(.get, "/api/health", body: Recordings.json(#"{"status":"ok"}"#)),
    ])

    static func rules(_ entry: DriftReport.Entry?) -> [String] {
        (entry?.findings ?? []).map { "\($0.rule.rawValue) \($0.path)" }
    }

    @Test func matchesFixturesByTheEndpointsDefaultNameAndByARecordedPathsName() throws {
        let report = DriftReport.compare(
            fixtures: [
                try Self.fixture("mock_api_users_id_get", #"{"id":1,"name":"Ada","age":"36"}"#),
                try Self.fixture("mock_api_health_get", #"{"status":"ok"}"#),
                try Self.fixture("mock_api_users_2_get", #"{"id":2,"name":"Alan"}"#),
            ], recorded: Self.recordedUsers)
        let entries = report.endpoints.map { "\($0.endpoint?.description ?? "-") \($0.fixture ?? "-") \($0.recordings)" }
        #expect(
            entries == [
                "GET /api/health mock_api_health_get.json 1",
                "GET /api/users/{id} mock_api_users_2_get.json 2",
                "GET /api/users/{id} mock_api_users_id_get.json 2",
            ])
        #expect(Self.rules(report.endpoints[1]) == ["fieldMissingInFixture $.age"])
        #expect(Self.rules(report.endpoints[2]) == ["typeMismatch $.age"])
        // Two fixtures with findings for one endpoint: one endpoint in the summary ("in 1 endpoint").
        #expect(
            report.summary == DriftReport.Summary(errors: 1, warnings: 1, notes: 0, endpoints: 1, fixtures: 3, baselineEndpoints: nil, recordedEndpoints: 2))
    }

    @Test func aRegistryRouteNamesTheFixtureOfItsEndpoint() throws {
        let registry = MockResponseRegistry(registrations: [
            try MockRoute(method: .get, path: "/api/users/{userId}", fixture: "users/detail"),
            try MockRoute(method: .get, path: "/api/legacy", fixture: "legacy"),
        ])
        let recorded = EndpointSchemas(
            interactions: [
                Recordings.make(.get, "/api/users/1", body: Recordings.json(#"{"id":1}"#))
            ], registry: registry)
        let report = DriftReport.compare(
            fixtures: [
                try Self.fixture("users/detail", #"{"id":1,"extra":true}"#),
                try Self.fixture("legacy", "{}"),
            ], recorded: recorded)
        let detail = report.endpoints.first { $0.fixture == "users/detail.json" }
        #expect(detail?.endpoint == Endpoint(method: .get, pattern: "/api/users/{userId}"))
        #expect(Self.rules(detail) == ["fieldNotInAPI $.extra"])
        let legacy = report.endpoints.first { $0.fixture == "legacy.json" }
        #expect(legacy?.endpoint == Endpoint(method: .get, pattern: "/api/legacy"))
        #expect(Self.rules(legacy) == ["fixtureWithoutRecording $"])
        #expect(legacy?.findings.first?.message == "registry.json routes GET /api/legacy to this fixture, but no 2xx JSON response of it was recorded")
    }

    @Test func unmatchedFixturesAndUncoveredEndpointsGetNotes() throws {
        let registry = MockResponseRegistry(registrations: [try MockRoute(method: .get, path: "/api/health", fixture: "health")])
        let recorded = EndpointSchemas(
            interactions: [
                Recordings.make(.get, "/api/health", body: Recordings.json(#"{"status":"ok"}"#)),
                Recordings.make(.get, "/api/foods", body: Recordings.json("[]")),
            ], registry: registry)
        let report = DriftReport.compare(fixtures: [try Self.fixture("orphan", "{}")], recorded: recorded)
        #expect(
            report.endpoints.map { $0.findings.map(\.message) } == [
                ["no fixture for this endpoint; harvest one as mock_api_foods_get.json or route it in registry.json"],
                ["no fixture for this endpoint: registry.json routes it to health, and health.json does not exist"],
                ["no recorded endpoint matches this fixture (by registry.json or by name), so nothing checks it"],
            ])
        #expect(report.endpoints.last?.endpoint == nil)
        #expect(report.endpoints.allSatisfy { $0.findings.allSatisfy { $0.severity == .note } })
        #expect(!report.hasFindings(atOrAbove: .warning))
        #expect(report.hasFindings(atOrAbove: .note))
    }

    @Test func ignorePatternsApplyEverywhereOrToOneEndpoint() throws {
        let recorded = EndpointSchemas(interactions: [
            Recordings.make(.get, "/api/users/1", body: Recordings.json(#"{"id":1,"meta":{"v":1},"email":"a@b.co"}"#)),
            Recordings.make(.get, "/api/admins/1", body: Recordings.json(#"{"id":1,"meta":{"v":1},"email":"a@b.co"}"#)),
        ])
        let fixtures = [
            try Self.fixture("mock_api_users_id_get", #"{"id":1,"meta":{"v":"1"},"email":5}"#),
            try Self.fixture("mock_api_admins_id_get", #"{"id":1,"meta":{"v":"1"},"email":5}"#),
        ]
        let report = DriftReport.compare(
            fixtures: fixtures, recorded: recorded,
            ignoring: [
                try DriftIgnore("$.meta"),
                try DriftIgnore("get /api/users/{userId}:$.email"),
            ])
        #expect(report.endpoints.map(Self.rules) == [["typeMismatch $.email"], []])
    }

    @Test func ignoringTheRootDropsAnEndpointsNotes() throws {
        let report = DriftReport.compare(fixtures: [], recorded: Self.recordedUsers, ignoring: [try DriftIgnore("GET /api/health:$")])
        #expect(report.endpoints.map(Self.rules) == [[], ["endpointWithoutFixture $"]])
    }

    @Test func comparesTwoRecordingsWithTheBaselineAsTheFixture() throws {
        let dev = EndpointSchemas(interactions: [
            Recordings.make(.get, "/api/users/1", body: Recordings.json(#"{"id":1,"age":36}"#)),
            Recordings.make(.get, "/api/old", body: Recordings.json("{}")),
        ])
        let staging = EndpointSchemas(interactions: [
            Recordings.make(.get, "/api/users/1", body: Recordings.json(#"{"id":1,"age":"36"}"#)),
            Recordings.make(.get, "/api/users/2", body: Recordings.json(#"{"id":2,"age":"41"}"#)),
            Recordings.make(.get, "/api/new", body: Recordings.json("{}")),
        ])
        let report = DriftReport.compare(baseline: dev, current: staging, sides: SchemaDiff.Sides(fixture: "dev", api: "staging"))
        #expect(
            report.endpoints.map { "\($0.endpoint!) \($0.baselineRecordings!) \($0.recordings)" } == [
                "GET /api/new 0 1", "GET /api/old 1 0", "GET /api/users/{id} 1 2",
            ])
        #expect(
            report.findings.map(\.textLine) == [
                "note    $  staging has 2xx JSON recordings of this endpoint, dev has none",
                "note    $  dev has 2xx JSON recordings of this endpoint, staging has none",
                "error   $.age  type changed: dev has integer, staging sends string",
            ])
        #expect(report.summary.baselineEndpoints == 2)
        #expect(report.summary.recordedEndpoints == 2)
        #expect(report.summary.fixtures == nil)
    }

    @Test func encodesAbsentValuesAsNullAndDecodesBack() throws {
        let report = DriftReport.compare(fixtures: [try Self.fixture("orphan", "{}")], recorded: EndpointSchemas())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(report), as: UTF8.self)
        #expect(
            text
                == #"{"endpoints":[{"baselineRecordings":null,"endpoint":null,"findings":[{"actual":"present","expected":"absent","message":"no recorded endpoint matches this fixture (by registry.json or by name), so nothing checks it","path":"$","rule":"fixtureWithoutRecording","severity":"note"}],"fixture":"orphan.json","recordings":0}],"summary":{"baselineEndpoints":null,"endpoints":1,"errors":0,"fixtures":1,"notes":1,"recordedEndpoints":0,"warnings":0}}"#
        )
        let full = DriftReport.compare(fixtures: [try Self.fixture("mock_api_users_id_get", #"{"id":"1"}"#)], recorded: Self.recordedUsers)
        #expect(try JSONDecoder().decode(DriftReport.self, from: try encoder.encode(full)) == full)
    }

    struct IgnoreCase: Sendable, CustomTestStringConvertible {
        let text: String
        let parsed: String?
        let error: String?
        var testDescription: String { text }
    }

    @Test(
        "ignore patterns parse or say what is wrong",
        arguments: [
            IgnoreCase(text: "$.meta", parsed: "$.meta", error: nil),
            IgnoreCase(text: "$.items[*].price", parsed: "$.items[*].price", error: nil),
            IgnoreCase(text: "GET /api/users/{id}:$.email", parsed: "GET /api/users/{id}:$.email", error: nil),
            IgnoreCase(text: "patch /api/a:$", parsed: "PATCH /api/a:$", error: nil),
            IgnoreCase(
                text: "meta", parsed: nil,
                error:
                    #"invalid ignore pattern "meta": expected a JSON path such as $.items[*].price, or an endpoint and a path such as 'GET /api/users/{id}:$.email'"#
            ),
            IgnoreCase(
                text: "$.items[0]", parsed: nil,
                error:
                    #"invalid ignore pattern "$.items[0]": invalid JSON path "$.items[0]" at character 9: schema paths have no element positions; use [*] for the items of an array"#
            ),
            IgnoreCase(
                text: "FETCH /api:$.a", parsed: nil,
                error: #"invalid ignore pattern "FETCH /api:$.a": "FETCH" is not a method (accepted: GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS)"#),
            IgnoreCase(
                text: "/api/users:$.a", parsed: nil,
                error:
                    #"invalid ignore pattern "/api/users:$.a": the endpoint "/api/users" needs a method and a path pattern, as in 'GET /api/users/{id}:$.email'"#
            ),
            IgnoreCase(
                text: "GET api:$.a", parsed: nil, error: #"invalid ignore pattern "GET api:$.a": pattern "api" must start with "/"; write it as "/api""#),
        ])
    func parsesIgnorePatterns(_ testCase: IgnoreCase) {
        do {
            let pattern = try DriftIgnore(testCase.text)
            #expect(pattern.description == testCase.parsed)
            #expect(testCase.error == nil)
        } catch {
            #expect(error.description == testCase.error)
            #expect(testCase.parsed == nil)
        }
    }
}
