import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette schema`, run as the real binary: the JSON Schema of each recorded endpoint, printed
/// or written one file per endpoint.
@Suite("cassette schema")
final class SchemaCommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    func recordSample(cassette: String = "dev") async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/health", cassette: cassette, body: Recordings.json(#"{"status":"ok"}"#)),
            Recordings.make(
                .get, "/api/users/1", cassette: cassette,
                body: Recordings.json(#"{"id":1,"email":"ada@example.com","joined":"2024-05-01T10:00:00Z","nickname":null}"#)),
            Recordings.make(
                .get, "/api/users/2", cassette: cassette, body: Recordings.json(#"{"id":2,"email":"alan@example.com","joined":"2025-01-31T23:59:59Z"}"#)),
            Recordings.make(.get, "/api/users/3", cassette: cassette, status: 404, body: Recordings.json(#"{"error":"not found"}"#)),
        ])
    }

    static let healthSchema = """
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "properties": {
            "status": {
              "type": "string"
            }
          },
          "required": [
            "status"
          ],
          "title": "GET /api/health",
          "type": "object"
        }
        """

    static let usersSchema = """
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "properties": {
            "email": {
              "type": "string"
            },
            "id": {
              "type": "integer"
            },
            "joined": {
              "format": "date-time",
              "type": "string"
            },
            "nickname": {
              "type": "null"
            }
          },
          "required": [
            "email",
            "id",
            "joined"
          ],
          "title": "GET /api/users/{id}",
          "type": "object"
        }
        """

    /// `text` indented by `spaces`, first line included.
    static func indented(_ text: String, by spaces: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { String(repeating: " ", count: spaces) + $0 }.joined(separator: "\n")
    }

    @Test func printsOneObjectKeyedByEndpoint() async throws {
        try await recordSample()
        let result = try await workspace.run("schema")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        let health = Self.indented(Self.healthSchema, by: 2).dropFirst(2)
        let users = Self.indented(Self.usersSchema, by: 2).dropFirst(2)
        #expect(result.stdout == "{\n  \"GET /api/health\": \(health),\n  \"GET /api/users/{id}\": \(users)\n}\n")
    }

    @Test func writesOneFilePerEndpointAndLeavesThemAloneTheSecondTime() async throws {
        try await recordSample()
        let first = try await workspace.run("schema", "--out", "schemas")
        #expect(first.status == 0, "\(first)")
        #expect(
            first.stdoutLines == [
                "wrote     schemas/mock_api_health_get.schema.json  (GET /api/health, 1 recording)",
                "wrote     schemas/mock_api_users_id_get.schema.json  (GET /api/users/{id}, 2 recordings)",
                "2 schemas from cassette dev in schemas: 2 written, 0 unchanged",
            ])
        let health = try String(contentsOfFile: workspace.path("schemas/mock_api_health_get.schema.json"), encoding: .utf8)
        let users = try String(contentsOfFile: workspace.path("schemas/mock_api_users_id_get.schema.json"), encoding: .utf8)
        #expect(health == Self.healthSchema + "\n")
        #expect(users == Self.usersSchema + "\n")

        let second = try await workspace.run("schema", "--out", "schemas")
        #expect(second.status == 0, "\(second)")
        #expect(second.stdoutLines.last == "2 schemas from cassette dev in schemas: 0 written, 2 unchanged")
        #expect(second.stdoutLines.first == "unchanged schemas/mock_api_health_get.schema.json  (GET /api/health, 1 recording)")
        #expect(try String(contentsOfFile: workspace.path("schemas/mock_api_users_id_get.schema.json"), encoding: .utf8) == users)
    }

    @Test func registryRoutesGroupRecordingsAndNameTheFiles() async throws {
        try await recordSample()
        try workspace.write(#"{"version":1,"routes":[{"method":"GET","path":"/api/users/{userId}","fixture":"users/detail"}]}"#, to: "fixtures/registry.json")
        let result = try await workspace.run("schema", "--fixtures", "fixtures", "--out", "fixtures")
        #expect(result.status == 0, "\(result)")
        #expect(workspace.fileExists("fixtures/users/detail.schema.json"))
        #expect(workspace.fileExists("fixtures/mock_api_health_get.schema.json"))
        let detail = try String(contentsOfFile: workspace.path("fixtures/users/detail.schema.json"), encoding: .utf8)
        #expect(detail.contains(#""title": "GET /api/users/{userId}""#))

        // Schema files beside the fixtures are not fixtures: diff sees none of them.
        let diff = try await workspace.run("diff", "--fixtures", "fixtures")
        #expect(diff.stdoutLines.last == "0 errors, 0 warnings, 2 notes in 2 endpoints (0 fixtures, 2 recorded endpoints)", "\(diff)")
    }

    @Test func picksTheCassetteByNameOrTheOnlyOne() async throws {
        try await recordSample(cassette: "staging")
        let only = try await workspace.run("schema")
        #expect(only.status == 0, "\(only)")
        #expect(only.stdout.contains("GET /api/users/{id}"))
        try await workspace.record([Recordings.make(.get, "/api/foods", cassette: "qa", body: Recordings.json("[]"))])
        let ambiguous = try await workspace.run("schema")
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr == "error: cassettes.db holds several cassettes (qa, staging) and none is named dev; pick one with --cassette NAME\n")
        let named = try await workspace.run("schema", "--cassette", "qa")
        #expect(named.status == 0, "\(named)")
        #expect(named.stdout.hasPrefix("{\n  \"GET /api/foods\": {"))
    }

    @Test func aMissingStoreIsAnInputError() async throws {
        let result = try await workspace.run("schema", "--db", "nothing.db")
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: nothing.db does not exist; record a session first (`cassette record`) or pass --db with the right path\n")
    }

    @Test func aCassetteWithoutJSONResponsesPrintsAnEmptyObjectAndAWarning() async throws {
        try await workspace.record([Recordings.make(.get, "/api/logo", responseHeaders: [.contentType: "image/png"], body: Data([0x89, 0x50]))])
        let result = try await workspace.run("schema")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "{}\n")
        #expect(result.stderr == "warning: cassette dev in cassettes.db has no 2xx JSON responses, so there is no schema to export\n")
    }
}
