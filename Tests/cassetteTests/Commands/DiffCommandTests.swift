import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette diff`, run as the real binary against stores filled through the library and fixture
/// folders written into each test's own working directory.
@Suite("cassette diff")
final class DiffCommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Two users and the health check, in cassette `cassette` of `store`.
    func recordUsers(cassette: String = "dev", into store: String = "cassettes.db", age: String = "36") async throws {
        try await workspace.record(
            [
                Recordings.make(.get, "/api/users/1", cassette: cassette, body: Recordings.json(#"{"id":1,"name":"Ada","age":\#(age)}"#)),
                Recordings.make(.get, "/api/users/2", cassette: cassette, body: Recordings.json(#"{"id":2,"name":"Alan","age":\#(age)}"#)),
                Recordings.make(.get, "/api/health", cassette: cassette, body: Recordings.json(#"{"status":"ok"}"#)),
                Recordings.make(.get, "/api/users/99", cassette: cassette, status: 404, body: Recordings.json(#"{"error":"not found"}"#)),
            ], into: store)
    }

    func writeFixtures(_ files: [String: String]) throws {
        for (name, text) in files {
            try workspace.write(text, to: "fixtures/" + name)
        }
    }

    static let cleanUser = #"{"id":7,"name":"Grace","age":85}"#
    static let health = #"{"status":"ok"}"#

    // MARK: Text output

    @Test func printsFindingsGroupedByEndpointWithASummaryLine() async throws {
        try await recordUsers()
        try writeFixtures([
            "mock_api_users_id_get.json": #"{"id":1,"age":"36"}"#,
            "mock_api_health_get.json": Self.health,
        ])
        let result = try await workspace.run("diff", "--fixtures", "fixtures")
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdoutLines == [
                "GET /api/users/{id}  (fixture mock_api_users_id_get.json, 2 recordings)",
                "  error   $.age  type changed: fixture has string, API sends integer",
                "  warning $.name  field missing in fixture: API sends string",
                "",
                "1 error, 1 warning, 0 notes in 1 endpoint (2 fixtures, 2 recorded endpoints)",
            ])
    }

    @Test func aCleanComparisonPrintsOnlyTheSummary() async throws {
        try await recordUsers()
        try writeFixtures(["mock_api_users_id_get.json": Self.cleanUser, "mock_api_health_get.json": Self.health])
        let result = try await workspace.run("diff", "--fixtures", "fixtures")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == ["0 errors, 0 warnings, 0 notes in 0 endpoints (2 fixtures, 2 recorded endpoints)"])
    }

    @Test func notesNameFixturesWithoutRecordingsAndEndpointsWithoutFixtures() async throws {
        try await recordUsers()
        try writeFixtures(["mock_api_users_id_get.json": Self.cleanUser, "old/meals.json": "[]"])
        let result = try await workspace.run("diff", "--fixtures", "fixtures", "--fail-on", "warning")
        #expect(result.status == 0, "notes never fail: \(result)")
        #expect(
            result.stdoutLines == [
                "GET /api/health  (no fixture, 1 recording)",
                "  note    $  no fixture for this endpoint; harvest one as mock_api_health_get.json or route it in registry.json",
                "",
                "(no endpoint)  (fixture old/meals.json, 0 recordings)",
                "  note    $  no recorded endpoint matches this fixture (by registry.json or by name), so nothing checks it",
                "",
                "0 errors, 0 warnings, 2 notes in 2 endpoints (2 fixtures, 2 recorded endpoints)",
            ])
    }

    @Test func registryRoutesAndRecordedPathNamesBothMatchFixtures() async throws {
        try await recordUsers()
        try writeFixtures([
            "registry.json":
                #"{"version":1,"routes":[{"method":"GET","path":"/api/users/{userId}","fixture":"users/detail"},{"method":"GET","path":"/api/status","fixture":"status"}]}"#,
            "users/detail.json": #"{"id":1,"name":"Ada","age":36,"avatar":"x"}"#,
            "mock_api_health_get.json": #"{"status":"ok","uptime":1}"#,
            "status.json": "{}",
        ])
        let result = try await workspace.run("diff", "--fixtures", "fixtures")
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stdoutLines == [
                "GET /api/health  (fixture mock_api_health_get.json, 1 recording)",
                "  error   $.uptime  field not in API: fixture has integer, the API never sends this field",
                "",
                "GET /api/status  (fixture status.json, 0 recordings)",
                "  note    $  registry.json routes GET /api/status to this fixture, but no 2xx JSON response of it was recorded",
                "",
                "GET /api/users/{userId}  (fixture users/detail.json, 2 recordings)",
                "  error   $.avatar  field not in API: fixture has string, the API never sends this field",
                "",
                "2 errors, 0 warnings, 1 note in 3 endpoints (3 fixtures, 2 recorded endpoints)",
            ])
    }

    @Test func aFixtureNamedAfterOneRecordedPathIsCompared() async throws {
        try await recordUsers()
        try writeFixtures(["mock_api_users_2_get.json": #"{"id":2,"name":"Alan","age":41.5}"#, "mock_api_health_get.json": Self.health])
        let result = try await workspace.run("diff", "--fixtures", "fixtures")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdoutLines.first == "GET /api/users/{id}  (fixture mock_api_users_2_get.json, 2 recordings)")
        #expect(result.stdoutLines.dropFirst().first == "  error   $.age  type changed: fixture has number, API sends integer")
    }

    // MARK: Exit status

    struct StatusCase: Sendable, CustomTestStringConvertible {
        let fixture: String
        let failOn: String?
        let status: Int32
        var testDescription: String { "\(fixture) --fail-on \(failOn ?? "(default)") -> \(status)" }
    }

    @Test(
        "exit status follows --fail-on",
        arguments: [
            StatusCase(fixture: cleanUser, failOn: nil, status: 0),
            StatusCase(fixture: cleanUser, failOn: "warning", status: 0),
            StatusCase(fixture: #"{"id":7,"age":85}"#, failOn: nil, status: 0),
            StatusCase(fixture: #"{"id":7,"age":85}"#, failOn: "error", status: 0),
            StatusCase(fixture: #"{"id":7,"age":85}"#, failOn: "warning", status: 1),
            StatusCase(fixture: #"{"id":7,"name":"G","age":"85"}"#, failOn: "error", status: 1),
            StatusCase(fixture: #"{"id":7,"name":"G","age":"85"}"#, failOn: "warning", status: 1),
        ])
    func exitStatusFollowsFailOn(_ testCase: StatusCase) async throws {
        try await recordUsers()
        try writeFixtures(["mock_api_users_id_get.json": testCase.fixture, "mock_api_health_get.json": Self.health])
        var arguments = ["diff", "--fixtures", "fixtures"]
        if let failOn = testCase.failOn { arguments += ["--fail-on", failOn] }
        let result = try await workspace.run(arguments: arguments)
        #expect(result.status == testCase.status, "\(result)")
        #expect(result.stderr.isEmpty, "drift is reported on stdout only: \(result)")
    }

    // MARK: JSON output

    @Test func jsonOutputIsStableAndSorted() async throws {
        try await recordUsers()
        try writeFixtures(["mock_api_users_id_get.json": #"{"id":1,"age":"36"}"#, "zzz.json": "{}"])
        let first = try await workspace.run("diff", "--fixtures", "fixtures", "--format", "json")
        let second = try await workspace.run("diff", "--fixtures", "fixtures", "--format", "json")
        #expect(first.status == 1, "\(first)")
        #expect(first.stdout == second.stdout)
        #expect(
            first.stdout == """
                {
                  "endpoints": [
                    {
                      "baselineRecordings": null,
                      "endpoint": "GET /api/health",
                      "findings": [
                        {
                          "actual": "absent",
                          "expected": "present",
                          "message": "no fixture for this endpoint; harvest one as mock_api_health_get.json or route it in registry.json",
                          "path": "$",
                          "rule": "endpointWithoutFixture",
                          "severity": "note"
                        }
                      ],
                      "fixture": null,
                      "recordings": 1
                    },
                    {
                      "baselineRecordings": null,
                      "endpoint": "GET /api/users/{id}",
                      "findings": [
                        {
                          "actual": "string",
                          "expected": "integer",
                          "message": "type changed: fixture has string, API sends integer",
                          "path": "$.age",
                          "rule": "typeMismatch",
                          "severity": "error"
                        },
                        {
                          "actual": "absent",
                          "expected": "string",
                          "message": "field missing in fixture: API sends string",
                          "path": "$.name",
                          "rule": "fieldMissingInFixture",
                          "severity": "warning"
                        }
                      ],
                      "fixture": "mock_api_users_id_get.json",
                      "recordings": 2
                    },
                    {
                      "baselineRecordings": null,
                      "endpoint": null,
                      "findings": [
                        {
                          "actual": "present",
                          "expected": "absent",
                          "message": "no recorded endpoint matches this fixture (by registry.json or by name), so nothing checks it",
                          "path": "$",
                          "rule": "fixtureWithoutRecording",
                          "severity": "note"
                        }
                      ],
                      "fixture": "zzz.json",
                      "recordings": 0
                    }
                  ],
                  "summary": {
                    "baselineEndpoints": null,
                    "endpoints": 3,
                    "errors": 1,
                    "fixtures": 2,
                    "notes": 2,
                    "recordedEndpoints": 2,
                    "warnings": 1
                  }
                }

                """)
    }

    @Test func jsonOutputListsCleanComparisonsToo() async throws {
        try await recordUsers()
        try writeFixtures(["mock_api_users_id_get.json": Self.cleanUser, "mock_api_health_get.json": Self.health])
        let result = try await workspace.run("diff", "--fixtures", "fixtures", "--format", "json")
        #expect(result.status == 0, "\(result)")
        let report = try JSONDecoder().decode(DriftReport.self, from: Data(result.stdout.utf8))
        #expect(report.endpoints.map(\.fixture) == ["mock_api_health_get.json", "mock_api_users_id_get.json"])
        #expect(report.findings.isEmpty)
    }

    // MARK: --ignore

    @Test func ignoreDropsFindingsEverywhereOrForOneEndpoint() async throws {
        try await recordUsers()
        try writeFixtures([
            "mock_api_users_id_get.json": #"{"id":"1","age":"36"}"#,
            "mock_api_health_get.json": #"{"status":1}"#,
        ])
        let all = try await workspace.run("diff", "--fixtures", "fixtures", "--ignore", "$.age", "--ignore", "$.status")
        #expect(
            all.stdoutLines.filter { $0.hasPrefix("  ") } == [
                "  error   $.id  type changed: fixture has string, API sends integer",
                "  warning $.name  field missing in fixture: API sends string",
            ])
        let scoped = try await workspace.run("diff", "--fixtures", "fixtures", "--ignore", "GET /api/users/{id}:$", "--ignore", "GET /api/health:$.status")
        #expect(scoped.status == 0, "\(scoped)")
        #expect(scoped.stderr.isEmpty)
        #expect(scoped.stdoutLines == ["0 errors, 0 warnings, 0 notes in 0 endpoints (2 fixtures, 2 recorded endpoints)"])
    }

    @Test func aScopedIgnoreThatNamesNoEndpointIsAWarning() async throws {
        try await recordUsers()
        try writeFixtures(["mock_api_users_id_get.json": Self.cleanUser, "mock_api_health_get.json": Self.health])
        let result = try await workspace.run("diff", "--fixtures", "fixtures", "--ignore", "GET /api/userz/{id}:$.age")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "warning: --ignore 'GET /api/userz/{id}:$.age' names no endpoint of this comparison; check the method and pattern\n")
    }

    // MARK: Two recordings

    @Test func comparesTwoCassettesOfOneStore() async throws {
        try await recordUsers(cassette: "dev")
        try await recordUsers(cassette: "staging", age: #""36""#)
        try await workspace.record([Recordings.make(.get, "/api/foods", cassette: "staging", body: Recordings.json("[]"))])
        let result = try await workspace.run("diff", "--cassette", "dev", "--cassette", "staging")
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stdoutLines == [
                "GET /api/foods  (dev: 0 recordings, staging: 1 recording)",
                "  note    $  staging has 2xx JSON recordings of this endpoint, dev has none",
                "",
                "GET /api/users/{id}  (dev: 2 recordings, staging: 2 recordings)",
                "  error   $.age  type changed: dev has integer, staging sends string",
                "",
                "1 error, 0 warnings, 1 note in 2 endpoints (2 endpoints in dev, 3 in staging)",
            ])
    }

    @Test func comparesTheSameCassetteInAnotherStore() async throws {
        try await recordUsers(into: "last-week.db")
        try await recordUsers(into: "today.db", age: "null")
        let result = try await workspace.run("diff", "--db", "last-week.db", "--against", "today.db")
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stdoutLines == [
                "GET /api/users/{id}  (last-week.db: 2 recordings, today.db: 2 recordings)",
                "  error   $.age  today.db sends null but last-week.db never has null; a model must make this optional (today.db sends null)",
                "",
                "1 error, 0 warnings, 0 notes in 1 endpoint (2 endpoints in last-week.db, 2 in today.db)",
            ])
        let reversed = try await workspace.run("diff", "--db", "today.db", "--against", "last-week.db", "--format", "json")
        let report = try JSONDecoder().decode(DriftReport.self, from: Data(reversed.stdout.utf8))
        #expect(report.findings.map(\.rule) == [.fixtureHasNull])
    }

    @Test func againstCassetteNamesTheOtherStoresCassette() async throws {
        try await recordUsers(cassette: "dev")
        try await recordUsers(cassette: "prod", into: "prod.db")
        let result = try await workspace.run("diff", "--against", "prod.db", "--against-cassette", "prod")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == ["0 errors, 0 warnings, 0 notes in 0 endpoints (2 endpoints in dev, 2 in prod)"])
    }

    // MARK: Usage and input errors

    @Test func aFixtureThatIsNotJSONIsAnInputErrorNamingTheFileLineAndColumn() async throws {
        try await recordUsers()
        try writeFixtures(["mock_api_health_get.json": Self.health, "users/list.json": "{\n  \"users\": [1, 2,]\n}"])
        let result = try await workspace.run("diff", "--fixtures", "fixtures")
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: fixtures/users/list.json is not valid JSON at line 2, column 18: trailing comma before ']'; remove the comma\n")
    }

    struct InputErrorCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test(
        "usage and input errors exit with status 2",
        arguments: [
            InputErrorCase(
                arguments: ["--fixtures", "fixtures", "--db", "missing.db"],
                message: "error: missing.db does not exist; record a session first (`cassette record`) or pass --db with the right path"),
            InputErrorCase(
                arguments: ["--fixtures", "nowhere"],
                message: "error: the fixtures directory nowhere does not exist; pass --fixtures with the folder that holds your *.json fixtures"),
            InputErrorCase(
                arguments: ["--fixtures", "fixtures", "--cassette", "qa"],
                message: "error: cassettes.db has no cassette named 'qa' (cassettes: dev); check the --cassette name"),
            InputErrorCase(
                arguments: ["--against", "other.db"],
                message: "error: other.db does not exist; record a session first (`cassette record`) or pass --against with the right path"),
            InputErrorCase(
                arguments: [],
                message:
                    "Error: say what to compare: --fixtures DIR (fixtures against a recording), --against OTHER.db, or --cassette A --cassette B (two recordings)"
            ),
            InputErrorCase(
                arguments: ["--fixtures", "fixtures", "--against", "other.db"],
                message:
                    "Error: --fixtures compares fixtures with one recording, and --against or a second --cassette compares two recordings; use one or the other"
            ),
            InputErrorCase(
                arguments: ["--fixtures", "fixtures", "--ignore", "age"],
                message:
                    #"Error: --ignore: invalid ignore pattern "age": expected a JSON path such as $.items[*].price, or an endpoint and a path such as 'GET /api/users/{id}:$.email'"#
            ),
            InputErrorCase(
                arguments: ["--fixtures", "fixtures", "--fail-on", "note"],
                message: "Error: The value 'note' is invalid for '--fail-on <fail-on>'"),
            InputErrorCase(
                arguments: ["--cassette", "a", "--cassette", "b", "--cassette", "c"],
                message: "Error: --cassette was given 3 times; give it once, or twice to compare two cassettes"),
        ])
    func usageAndInputErrorsExitWithStatus2(_ testCase: InputErrorCase) async throws {
        try await recordUsers()
        try writeFixtures(["mock_api_health_get.json": Self.health])
        let result = try await workspace.run(arguments: ["diff"] + testCase.arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix(testCase.message), "\(result)")
    }

    @Test func aBrokenRegistryIsAnInputError() async throws {
        try await recordUsers()
        try writeFixtures(["registry.json": #"{"version":1,"routes":[{"method":"GET","path":"api","fixture":"x"}]}"#])
        let result = try await workspace.run("diff", "--fixtures", "fixtures")
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("registry.json: $.routes[0].path: pattern \"api\" must start with \"/\""), "\(result)")
    }

    // MARK: Colour

    @Test func coloursSeveritiesOnATerminalOnly() async throws {
        try await recordUsers()
        try writeFixtures(["mock_api_users_id_get.json": #"{"id":1,"name":"Ada","age":"36"}"#, "mock_api_health_get.json": Self.health])
        let arguments = ["diff", "--fixtures", "fixtures"]
        let colour = try await runCassetteOnTerminal(arguments, cwd: workspace.directory, columns: 120, environment: ["TERM": "xterm", "NO_COLOR": ""])
        #expect(colour.status == 1)
        #expect(colour.stdout.contains("  \u{1B}[31merror\u{1B}[0m   $.age  type changed"), "\(colour.stdout)")
        let plain = try await runCassetteOnTerminal(arguments, cwd: workspace.directory, columns: 120, environment: ["NO_COLOR": "1"])
        #expect(!plain.stdout.contains("\u{1B}["))
        #expect(plain.stdout.contains("  error   $.age  type changed"))
    }
}
