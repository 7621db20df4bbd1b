import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette openapi`, run as the real binary; every document is checked by
/// openapi-spec-validator (PyPI), a validator that knows nothing of this project.
@Suite("cassette openapi")
final class OpenAPICommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func validate(_ file: String) async throws {
        let validator = try await ExternalTool.openAPIValidator()
        let result = try await ExternalTool.run(validator, [workspace.path(file)], cwd: workspace.directory)
        #expect(result.status == 0, "openapi-spec-validator rejected \(file): \(result)")
        #expect(result.stdout.contains("OK"), "\(result)")
    }

    private func document(_ file: String) throws -> JSONValue {
        try JSONValue(parsing: Data(contentsOf: URL(fileURLWithPath: workspace.path(file))))
    }

    @Test("the sample API's recordings: a valid OpenAPI 3.1 document in JSON and in YAML")
    func sampleRecordings() async throws {
        try FileManager.default.copyItem(atPath: CodegenCommandTests.sampleStore.path, toPath: workspace.storePath)
        let json = try await workspace.run("openapi", "--out", "openapi.json")
        #expect(json.status == 0, "\(json)")
        let yaml = try await workspace.run("openapi", "--out", "openapi.yaml")
        #expect(yaml.status == 0, "\(yaml)")
        try await validate("openapi.json")
        try await validate("openapi.yaml")

        let document = try document("openapi.json")
        #expect(document["openapi"] == "3.1.0")
        #expect(document["servers"]?[0]?["url"] == "http://127.0.0.1:40219")
        let user = try #require(document["paths"]?["/api/users/{id}"])
        #expect(user["get"]?["parameters"]?[0] == ["name": "id", "in": "path", "required": true, "schema": ["type": "integer"]])
        #expect(
            user["get"]?["responses"]?["200"]?["content"]?["application/json"]?["schema"]?["properties"]?["createdAt"] == [
                "type": "string", "format": "date-time",
            ])
        #expect(user["get"]?["responses"]?["404"] != nil)
        #expect(user["delete"]?["responses"]?["204"]?["content"] == nil)
        #expect(user["patch"]?["requestBody"]?["content"]?["application/json"]?["schema"] != nil)
        let history = try #require(document["paths"]?["/api/nutrition/history"]?["get"])
        #expect(history["parameters"]?[0] == ["name": "limit", "in": "query", "required": true, "schema": ["type": "integer"]])

        // YAML: the same document, status codes kept as strings.
        let yamlText = try String(contentsOfFile: workspace.path("openapi.yaml"), encoding: .utf8)
        #expect(yamlText.contains("'200':"))
        #expect(yamlText.hasPrefix("info:") || yamlText.contains("\nopenapi: 3.1.0"))
    }

    @Test("tricky shapes validate too; examples are redacted with the current rules; output is deterministic")
    func trickyShapesRedactedExamples() async throws {
        var interactions = CodegenSamples.interactions
        interactions.append(Recordings.make(.get, "/api/accounts/7?expand=true", body: Recordings.json(#"{"id": 7, "ssn": "123-45-6789"}"#)))
        try await workspace.record(interactions)
        try workspace.write(#"{"redact": {"jsonFields": ["ssn"]}}"#, to: "cassette.json")
        let first = try await workspace.run("openapi", "--format", "yaml", "--out", "api.yaml")
        #expect(first.status == 0, "\(first)")
        try await validate("api.yaml")
        let second = try await workspace.run("openapi", "--format", "yaml", "--out", "api.yaml")
        #expect(second.stdout.hasPrefix("unchanged api.yaml"), "\(second)")

        let printed = try await workspace.run("openapi")
        #expect(printed.status == 0)
        let document = try JSONValue(parsing: Data(printed.stdout.utf8))
        let account = try #require(document["paths"]?["/api/accounts/{id}"]?["get"])
        #expect(account["responses"]?["200"]?["content"]?["application/json"]?["example"] == ["id": 7, "ssn": "REDACTED"])
        #expect(account["parameters"]?[1] == ["name": "expand", "in": "query", "required": true, "schema": ["type": "boolean"]])
        #expect(!printed.stdout.contains("123-45-6789"))
        let health = try #require(document["paths"]?["/api/health"]?["get"]?["responses"]?["200"]?["content"]?["text/plain"])
        #expect(health == ["schema": ["type": "string"], "example": "ok"])
    }
}
