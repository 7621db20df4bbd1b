import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The commands that describe recordings, on a cassette recorded from two hosts whose `GET /v1/me`
/// answer differently: each names or groups by host, so the two never merge.
@Suite("Commands on a multi-host cassette")
final class MultiHostCommandTests {
    let workspace: CLIWorkspace
    static let api = "https://api.example.com"
    static let auth = "https://auth.example.com:8443"

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// A recording keyed as a multi-host proxy keys it: with its origin.
    static func recording(_ method: HTTPMethod = .get, _ url: String, body: String, cassette: String = "dev", second: Double = 0) -> Interaction {
        let key = RequestKey(method: method, target: url, rules: MatchingRules(includeHost: true))
        return Interaction(
            cassette: cassette, method: method, url: url, key: key.rawValue, requestHeaders: [:], requestBody: nil, statusCode: 200,
            responseHeaders: [.contentType: "application/json"], responseBody: Data(body.utf8),
            recordedAt: Recordings.recordedAt.addingTimeInterval(second), duration: .milliseconds(5))
    }

    static func cassette(_ name: String = "dev", apiMe: String = #"{"id": 1, "name": "Ada"}"#) -> [Interaction] {
        [
            recording(.get, api + "/v1/me", body: apiMe, cassette: name),
            recording(.get, auth + "/v1/me", body: #"{"session": "s1", "expires": 3600}"#, cassette: name, second: 1),
            recording(.get, api + "/v1/meals", body: #"[{"id": 1, "calories": 300}]"#, cassette: name, second: 2),
        ]
    }

    func recordDev() async throws {
        let info = CassetteInfo(name: "dev", upstream: "\(Self.api) \(Self.auth)", matchingRules: MatchingRules(includeHost: true))
        try await workspace.record(Self.cassette(), cassettes: [info])
    }

    @Test func schemaPrintsOneObjectPerHostAndWritesOneDirectoryPerHost() async throws {
        try await recordDev()
        let printed = try await workspace.run("schema")
        #expect(printed.status == 0, "\(printed)")
        let document = try JSONValue(parsing: Data(printed.stdout.utf8))
        #expect(document[Self.api]?["GET /v1/me"]?["properties"]?["name"] != nil, "\(printed.stdout)")
        #expect(document[Self.auth]?["GET /v1/me"]?["properties"]?["session"] != nil, "\(printed.stdout)")
        #expect(document[Self.auth]?["GET /v1/meals"] == nil)

        let written = try await workspace.run("schema", "--out", "schemas")
        #expect(written.status == 0, "\(written)")
        #expect(workspace.fileExists("schemas/api.example.com/mock_v1_me_get.schema.json"), "\(written)")
        #expect(workspace.fileExists("schemas/auth.example.com_8443/mock_v1_me_get.schema.json"), "\(written)")
        #expect(!workspace.fileExists("schemas/mock_v1_me_get.schema.json"))
    }

    @Test func exportWritesEachHostsFixturesAndRegistryInItsOwnDirectory() async throws {
        try await recordDev()
        let result = try await workspace.run("export", "--fixtures", "fixtures")
        #expect(result.status == 0, "\(result)")
        #expect(workspace.fileExists("fixtures/api.example.com/registry.json"), "\(result)")
        #expect(workspace.fileExists("fixtures/auth.example.com_8443/registry.json"), "\(result)")
        let auth = try JSONValue(parsing: Data(contentsOf: URL(fileURLWithPath: workspace.path("fixtures/auth.example.com_8443/mock_v1_me_get.json"))))
        #expect(auth["session"] == "s1")
        #expect(result.stdout.contains("from cassette dev (\(Self.auth))"), "\(result)")
    }

    @Test func openAPIHasOneServerPerHostAndEachPathNamesItsHosts() async throws {
        try await recordDev()
        let result = try await workspace.run("openapi", "--out", "openapi.json")
        #expect(result.status == 0, "\(result)")
        let document = try JSONValue(parsing: Data(contentsOf: URL(fileURLWithPath: workspace.path("openapi.json"))))
        #expect(document["servers"] == [["url": .string(Self.api)], ["url": .string(Self.auth)]])
        #expect(document["paths"]?["/v1/me"]?["servers"] == [["url": .string(Self.api)], ["url": .string(Self.auth)]])
        #expect(document["paths"]?["/v1/meals"]?["servers"] == [["url": .string(Self.api)]])
        // One operation for GET /v1/me on both hosts: each host's answer is one of its schemas.
        let schema = document["paths"]?["/v1/me"]?["get"]?["responses"]?["200"]?["content"]?["application/json"]?["schema"]
        let alternatives = schema?["anyOf"]?.arrayValue ?? []
        #expect(alternatives.count == 2, "\(String(describing: schema))")
        #expect(alternatives.contains { $0["properties"]?["name"] != nil } && alternatives.contains { $0["properties"]?["session"] != nil })
        #expect(document["paths"]?["/v1/me"]?["get"]?["description"]?.stringValue?.contains(Self.auth) == true)
        let validator = try await ExternalTool.openAPIValidator()
        let validated = try await ExternalTool.run(validator, [workspace.path("openapi.json")], cwd: workspace.directory)
        #expect(validated.status == 0, "\(validated)")
    }

    @Test func codegenWritesOneDirectoryOfTypesPerHost() async throws {
        try await recordDev()
        let result = try await workspace.run("codegen", "swift", "--out", "Models")
        #expect(result.status == 0, "\(result)")
        let api = try FileManager.default.contentsOfDirectory(atPath: workspace.path("Models/api.example.com"))
        let auth = try FileManager.default.contentsOfDirectory(atPath: workspace.path("Models/auth.example.com_8443"))
        #expect(api.contains("Me.swift") && api.contains("Meal.swift"), "\(api)")
        #expect(auth == ["Me.swift"], "\(auth)")
        let authMe = try String(contentsOfFile: workspace.path("Models/auth.example.com_8443/Me.swift"), encoding: .utf8)
        #expect(authMe.contains("session"), "\(authMe)")
        let check = try await workspace.run("codegen", "swift", "--out", "Models", "--check")
        #expect(check.status == 0, "\(check)")
    }

    @Test func diffNamesTheHostOfADriftedEndpoint() async throws {
        let info = CassetteInfo(name: "old", upstream: "\(Self.api) \(Self.auth)", matchingRules: MatchingRules(includeHost: true))
        try await workspace.record(
            Self.cassette("old") + Self.cassette("new", apiMe: #"{"id": "1", "name": "Ada"}"#), cassettes: [info])
        let result = try await workspace.run("diff", "--cassette", "old", "--cassette", "new")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("GET \(Self.api)/v1/me"), "\(result)")
        #expect(!result.stdout.contains("GET \(Self.auth)/v1/me:"), "\(result)")
    }

    /// The fixtures `export --fixtures` writes for each host are checked against that host's
    /// recordings only: the same path on two hosts answers differently, and neither is drift.
    @Test func diffChecksEachHostsExportedFixturesAgainstItsOwnRecordings() async throws {
        try await recordDev()
        #expect(try await workspace.run("export", "--fixtures", "fixtures").status == 0)
        let clean = try await workspace.run("diff", "--fixtures", "fixtures", "--format", "json")
        #expect(clean.status == 0, "\(clean)")
        let report = try JSONValue(parsing: Data(clean.stdout.utf8))
        #expect(report["summary"]?["errors"] == 0 && report["summary"]?["warnings"] == 0, "\(clean.stdout)")
        #expect(report["summary"]?["fixtures"] == 3, "\(clean.stdout)")
        let endpoints = report["endpoints"]?.arrayValue?.compactMap { $0["endpoint"]?.stringValue } ?? []
        #expect(Set(endpoints) == ["GET \(Self.api)/v1/me", "GET \(Self.auth)/v1/me", "GET \(Self.api)/v1/meals"], "\(clean.stdout)")

        // The auth host's fixture drifts; the API's fixture of the same path does not.
        try #"{"session": 1, "expires": 3600}"#.write(
            toFile: workspace.path("fixtures/auth.example.com_8443/mock_v1_me_get.json"), atomically: true, encoding: .utf8)
        let drifted = try await workspace.run("diff", "--fixtures", "fixtures")
        #expect(drifted.status == 1, "\(drifted)")
        #expect(drifted.stdout.contains("GET \(Self.auth)/v1/me"), "\(drifted)")
        #expect(drifted.stdout.contains("auth.example.com_8443/mock_v1_me_get.json"), "\(drifted)")
        #expect(!drifted.stdout.contains("GET \(Self.api)/v1/me ("), "\(drifted)")
    }

    @Test func listAndShowNameTheHost() async throws {
        try await recordDev()
        let list = try await workspace.run("list")
        #expect(list.stdout.contains("GET \(Self.auth)/v1/me"), "\(list)")
        let ambiguous = try await workspace.run("show", "GET /v1/me")
        #expect(ambiguous.status != 0)
        #expect(ambiguous.stderr.contains(Self.api) && ambiguous.stderr.contains(Self.auth), "\(ambiguous)")
        let show = try await workspace.run("show", "GET \(Self.auth)/v1/me")
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.contains("s1"), "\(show)")
    }
}
