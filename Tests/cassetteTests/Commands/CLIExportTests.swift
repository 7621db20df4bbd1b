import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette export`, run as the real binary against stores filled through the library. Each test
/// instance has its own working directory; fixtures go to `Fixtures` inside it. Serialized: each
/// test starts the binary one to three times, and on two cores a burst of such processes delays
/// the wall-clock deadlines the transport tests running alongside assert.
@Suite("cassette export", .serialized)
final class CLIExportTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    var fixtures: URL { workspace.directory.appendingPathComponent("Fixtures", isDirectory: true) }

    func export(_ extra: String...) async throws -> CommandResult {
        try await workspace.run(arguments: ["export", "--fixtures", "Fixtures"] + extra)
    }

    func fixture(_ name: String) throws -> String {
        try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
    }

    func writeFixture(_ text: String, to name: String) throws {
        try workspace.write(text, to: "Fixtures/\(name)")
    }

    /// Every file under `Fixtures`, relative path to bytes.
    func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: fixtures, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            files[String(url.standardizedFileURL.path.dropFirst(fixtures.standardizedFileURL.path.count + 1))] = try Data(contentsOf: url)
        }
        return files
    }

    func modificationDate(_ name: String) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: fixtures.appendingPathComponent(name).path)[.modificationDate] as? Date
    }

    static func at(_ seconds: TimeInterval) -> Date {
        Recordings.recordedAt.addingTimeInterval(seconds)
    }

    static let ada = Recordings.json(#"{"id":42,"name":"Ada","score":1.0}"#)

    // MARK: What is written

    @Test func writesPrettySortedFixturesAndAnExactRegistry() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/users/42", body: Self.ada),
            Recordings.make(.get, "/api/users?limit=2", body: Recordings.json(#"[{"name":"Ada","id":1}]"#)),
        ])
        let result = try await export()
        #expect(result.status == 0, "\(result)")
        #expect(
            try fixture("mock_api_users_id_get.json") == """
                {
                  "id": 42,
                  "name": "Ada",
                  "score": 1.0
                }

                """)
        #expect(
            try fixture("mock_api_users_get.json") == """
                [
                  {
                    "id": 1,
                    "name": "Ada"
                  }
                ]

                """)
        #expect(
            try fixture(MockResponseRegistry.fileName) == """
                {
                  "routes": [
                    {
                      "fixture": "mock_api_users_get",
                      "method": "GET",
                      "path": "/api/users"
                    },
                    {
                      "fixture": "mock_api_users_id_get",
                      "method": "GET",
                      "path": "/api/users/{id}"
                    }
                  ],
                  "version": 1
                }

                """)
        #expect(try snapshot().keys.sorted() == ["mock_api_users_get.json", "mock_api_users_id_get.json", "registry.json"])
    }

    @Test func idSegmentsBecomeParametersAndWordsStayLiteral() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/users/42/meals/7"),
            Recordings.make(.get, "/api/sessions/3F2504E0-4F89-11D3-9A0C-0305E82C3301"),
            Recordings.make(.get, "/api/blobs/9f86d081884c7d659a2feaa0c55ad015"),
            Recordings.make(.get, "/api/users/me"),
            Recordings.make(.delete, "/api/users/42/meals/7", body: Recordings.json(#"{"deleted":true}"#)),
        ])
        let result = try await export()
        #expect(result.status == 0, "\(result)")
        let routes = try MockResponseRegistry.load(fixturesDirectory: fixtures).registrations.map(\.description)
        #expect(
            routes == [
                "GET /api/blobs/{id} -> mock_api_blobs_id_get",
                "GET /api/sessions/{id} -> mock_api_sessions_id_get",
                "GET /api/users/me -> mock_api_users_me_get",
                "DELETE /api/users/{id}/meals/{id2} -> mock_api_users_id_meals_id2_delete",
                "GET /api/users/{id}/meals/{id2} -> mock_api_users_id_meals_id2_get",
            ])
    }

    @Test func theMostRecentOfSeveralRecordingsWins() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/users/1", body: Recordings.json(#"{"id":1}"#), recordedAt: Self.at(10)),
            Recordings.make(.get, "/api/users/3", body: Recordings.json(#"{"id":3}"#), recordedAt: Self.at(30)),
            Recordings.make(.get, "/api/users/2", body: Recordings.json(#"{"id":2}"#), recordedAt: Self.at(20)),
            // Newer, but an error: never a fixture.
            Recordings.make(.get, "/api/users/9", status: 404, body: Recordings.json(#"{"error":"not_found"}"#), recordedAt: Self.at(40)),
        ])
        let result = try await export()
        #expect(result.status == 0, "\(result)")
        #expect(try fixture("mock_api_users_id_get.json") == "{\n  \"id\": 3\n}\n")
        #expect(result.stdoutLines.first == "created  mock_api_users_id_get.json  (GET /api/users/{id}, from 3 recordings, 1 more skipped as not 2xx JSON)")
    }

    @Test func recordingsMadeAtTheSameTimeGoToTheHighestID() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/health", body: Recordings.json(#"{"status":"first"}"#)),
            Recordings.make(.get, "/api/health", body: Recordings.json(#"{"status":"second"}"#)),
        ])
        let result = try await export()
        #expect(result.status == 0, "\(result)")
        #expect(try fixture("mock_api_health_get.json") == "{\n  \"status\": \"second\"\n}\n")
    }

    @Test func responsesThatAreNotSuccessfulJSONAreSkippedWithTheReason() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/binary", responseHeaders: [.contentType: "application/octet-stream"], body: Data([0, 1, 2, 255])),
            Recordings.make(.get, "/api/binary", responseHeaders: [.contentType: "application/octet-stream"], body: Data([3])),
            Recordings.make(.get, "/api/missing", status: 404, body: Recordings.json(#"{"error":"not_found"}"#)),
            Recordings.make(.get, "/api/text", responseHeaders: [.contentType: "text/plain; charset=utf-8"], body: Recordings.json("ok")),
            Recordings.make(.get, "/api/untyped", responseHeaders: [:], body: Recordings.json("<html></html>")),
            Recordings.make(.get, "/api/broken", body: Recordings.json(#"{"a":"#)),
            Recordings.make(.delete, "/api/users/1", status: 204, responseHeaders: [:], body: Data()),
            // JSON without a Content-Type, and a structured-syntax JSON type: both fixtures.
            Recordings.make(.get, "/api/bare", responseHeaders: [:], body: Recordings.json(#"{"bare":true}"#)),
            Recordings.make(.get, "/api/problem", responseHeaders: [.contentType: "application/problem+json"], body: Recordings.json(#"{"title":"ok"}"#)),
        ])
        let result = try await export()
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdoutLines == [
                "created  mock_api_bare_get.json  (GET /api/bare, from 1 recording)",
                "created  mock_api_problem_get.json  (GET /api/problem, from 1 recording)",
                "skipped  GET /api/binary  (application/octet-stream: not JSON; 2 recordings)",
                "skipped  GET /api/broken  (application/json but not valid JSON (line 1, column 6: the input ends where a value was expected; the JSON is truncated))",
                "skipped  GET /api/missing  (status 404: only 2xx responses become fixtures)",
                "skipped  GET /api/text  (text/plain: not JSON)",
                "skipped  GET /api/untyped  (no Content-Type and the body is not JSON)",
                "skipped  DELETE /api/users/{id}  (status 204 with an empty body: MockAPIClient answers void requests without a fixture)",
                "created  registry.json  (2 routes)",
                "Exported 2 fixtures from cassette dev (9 recordings) to Fixtures: 2 created; 6 endpoints skipped.",
            ])
        #expect(try snapshot().keys.sorted() == ["mock_api_bare_get.json", "mock_api_problem_get.json", "registry.json"])
    }

    @Test func configuredJSONFieldsAreRedactedAgain() async throws {
        try workspace.write(#"{"redact": {"jsonFields": ["ssn"]}}"#, to: "cassette.json")
        try await workspace.record([
            Recordings.make(.get, "/api/me", body: Recordings.json(#"{"name":"Ada","profile":{"SSN":"123-45-6789","age":36},"items":[{"ssn":1}]}"#))
        ])
        let result = try await export()
        #expect(result.status == 0, "\(result)")
        let text = try fixture("mock_api_me_get.json")
        #expect(!text.contains("123-45-6789"))
        #expect(try JSONValue(parsing: text) == ["name": "Ada", "profile": ["SSN": "REDACTED", "age": 36], "items": [["ssn": "REDACTED"]]])
    }

    // MARK: Existing files

    @Test func aSecondRunChangesNothing() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/users/42", body: Self.ada),
            Recordings.make(.get, "/api/binary", responseHeaders: [.contentType: "application/octet-stream"], body: Data([1])),
        ])
        let first = try await export()
        #expect(first.status == 0, "\(first)")
        let before = try snapshot()
        let modified = try modificationDate("mock_api_users_id_get.json")
        let second = try await export()
        #expect(second.status == 0, "\(second)")
        #expect(
            second.stdoutLines == [
                "unchanged  mock_api_users_id_get.json  (GET /api/users/{id}, from 1 recording)",
                "skipped  GET /api/binary  (application/octet-stream: not JSON)",
                "unchanged  registry.json  (1 route)",
                "Exported 1 fixture from cassette dev (2 recordings) to Fixtures: 1 unchanged; 1 endpoint skipped.",
            ])
        #expect(try snapshot() == before)
        #expect(try modificationDate("mock_api_users_id_get.json") == modified)
    }

    @Test func aDifferingFileIsKeptWithoutForceWhileEverythingElseIsWritten() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users/42", body: Self.ada)])
        _ = try await export()
        let edited = "{\n  \"id\": 42,\n  \"name\": \"Edited by hand\"\n}\n"
        try writeFixture(edited, to: "mock_api_users_id_get.json")
        try await workspace.record([Recordings.make(.get, "/api/health", body: Recordings.json(#"{"status":"ok"}"#))])

        let refused = try await export()
        #expect(refused.status == 1, "\(refused)")
        #expect(
            refused.stdoutLines == [
                "created  mock_api_health_get.json  (GET /api/health, from 1 recording)",
                "would overwrite  mock_api_users_id_get.json  (GET /api/users/{id}, from 1 recording; differs; use --force)",
                "updated  registry.json  (2 routes, 1 new)",
                "Exported 2 fixtures from cassette dev (2 recordings) to Fixtures: 1 created, 1 not overwritten (use --force).",
            ])
        #expect(
            refused.stderr
                == "error: 1 fixture file in Fixtures differs from the recordings and was not overwritten; check it and rerun with --force to replace it\n")
        #expect(try fixture("mock_api_users_id_get.json") == edited)
        #expect(try fixture("mock_api_health_get.json") == "{\n  \"status\": \"ok\"\n}\n")

        let forced = try await export("--force")
        #expect(forced.status == 0, "\(forced)")
        #expect(forced.stdoutLines.contains("overwrote  mock_api_users_id_get.json  (GET /api/users/{id}, from 1 recording; differed)"))
        #expect(try fixture("mock_api_users_id_get.json") == "{\n  \"id\": 42,\n  \"name\": \"Ada\",\n  \"score\": 1.0\n}\n")
    }

    @Test func theRegistryGainsNoRouteForAFixtureThatWasNotWritten() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/users/42", body: Self.ada),
            Recordings.make(.get, "/api/health", body: Recordings.json(#"{"status":"ok"}"#)),
        ])
        try writeFixture(#"{"id": 1}"#, to: "mock_api_users_id_get.json")
        let result = try await export()
        #expect(result.status == 1, "\(result)")
        let routes = try MockResponseRegistry.load(fixturesDirectory: fixtures).registrations.map(\.description)
        #expect(routes == ["GET /api/health -> mock_api_health_get"])
        #expect(try fixture("mock_api_users_id_get.json") == #"{"id": 1}"#)
    }

    @Test func aFileWithTheSameJSONInAnotherLayoutIsLeftAsItIs() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users/42", body: Self.ada)])
        let compact = #"{"score": 1.0, "name": "Ada", "id": 42}"#
        try writeFixture(compact, to: "mock_api_users_id_get.json")
        let result = try await export()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.first == "unchanged  mock_api_users_id_get.json  (GET /api/users/{id}, from 1 recording)")
        #expect(try fixture("mock_api_users_id_get.json") == compact)
    }

    @Test func aHandMadeRegistryKeepsItsPatternsAndFixtureNames() async throws {
        try writeFixture(
            """
            {"version": 1, "routes": [
              {"method": "GET", "path": "/api/users/{userId}", "fixture": "users/detail"},
              {"method": "GET", "path": "/api/status", "fixture": "status_ok"}
            ]}
            """, to: MockResponseRegistry.fileName)
        try await workspace.record([
            Recordings.make(.get, "/api/users/42", body: Self.ada),
            Recordings.make(.get, "/api/meals", body: Recordings.json("[]")),
        ])
        let result = try await export()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.contains("created  users/detail.json  (GET /api/users/{userId}, from 1 recording)"))
        #expect(result.stdoutLines.contains("updated  registry.json  (3 routes, 1 new)"))
        #expect(try fixture("users/detail.json").contains("\"Ada\""))
        let routes = try MockResponseRegistry.load(fixturesDirectory: fixtures).registrations.map(\.description)
        #expect(
            routes == [
                "GET /api/meals -> mock_api_meals_get",
                "GET /api/status -> status_ok",
                "GET /api/users/{userId} -> users/detail",
            ])
    }

    @Test func aHandFormattedRegistryWithTheSameRoutesIsLeftAsItIs() async throws {
        let registry = #"{"version": 1, "routes": [{"path": "/api/users/{id}", "method": "GET", "fixture": "mock_api_users_id_get"}]}"#
        try writeFixture(registry, to: MockResponseRegistry.fileName)
        try await workspace.record([Recordings.make(.get, "/api/users/42", body: Self.ada)])
        let result = try await export()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.contains("unchanged  registry.json  (1 route)"))
        #expect(try fixture(MockResponseRegistry.fileName) == registry)
    }

    // MARK: Dry run

    @Test func aDryRunListsTheChangesAndWritesNothing() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users/42", body: Self.ada)])
        let result = try await export("--dry-run")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdoutLines == [
                "would create  mock_api_users_id_get.json  (GET /api/users/{id}, from 1 recording)",
                "would create  registry.json  (1 route)",
                "Dry run, nothing written. Would export 1 fixture from cassette dev (1 recording) to Fixtures: 1 to create.",
            ])
        #expect(!workspace.fileExists("Fixtures"))
    }

    @Test func aDryRunOverADifferingFileExitsAsTheRealRunWould() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users/42", body: Self.ada)])
        try writeFixture(#"{"id": 1}"#, to: "mock_api_users_id_get.json")
        let before = try snapshot()
        let result = try await export("--dry-run")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdoutLines.first == "would overwrite  mock_api_users_id_get.json  (GET /api/users/{id}, from 1 recording; differs; use --force)")
        #expect(try snapshot() == before)

        let forced = try await export("--dry-run", "--force")
        #expect(forced.status == 0, "\(forced)")
        #expect(forced.stdoutLines.first == "would overwrite  mock_api_users_id_get.json  (GET /api/users/{id}, from 1 recording; differs)")
        #expect(try snapshot() == before)
    }

    // MARK: Errors

    @Test func aFixturesPathThatIsAFileIsAClearError() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users/42", body: Self.ada)])
        try workspace.write("notes", to: "Fixtures")
        let result = try await export()
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: --fixtures Fixtures is a file, not a directory; pass a directory (it is created when missing)\n")
    }

    @Test func aMalformedRegistryIsNamedAndNothingIsWritten() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users/42", body: Self.ada)])
        try writeFixture("{", to: MockResponseRegistry.fileName)
        let result = try await export()
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix("error: \(fixtures.appendingPathComponent(MockResponseRegistry.fileName).path): line 1, column 2: is not valid JSON"),
            "\(result)")
        #expect(result.stderr.hasSuffix("; fix it (or move it away) before exporting\n"))
        #expect(try snapshot().keys.sorted() == [MockResponseRegistry.fileName])
    }

    @Test func aStoreWithSeveralCassettesNeedsACassetteName() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/users/42", body: Self.ada),
            Recordings.make(.get, "/api/users/42", cassette: "staging", body: Self.ada),
        ])
        let ambiguous = try await export()
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr == "error: cassettes.db holds several cassettes (dev, staging); choose one with --cassette NAME\n")
        let unknown = try await export("--cassette", "prod")
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "error: cassettes.db has no cassette named 'prod' (cassettes: dev, staging); check the --cassette name\n")
        let chosen = try await export("--cassette", "staging")
        #expect(chosen.status == 0, "\(chosen)")
        #expect(chosen.stdoutLines.last == "Exported 1 fixture from cassette staging (1 recording) to Fixtures: 1 created.")
    }
}
