import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `EndpointSchemas`: which recordings are samples, how they group into endpoints, and the
/// fixture names an endpoint answers to.
@Suite("endpoint schemas from recordings")
struct EndpointSchemasTests {
    struct SampleCase: Sendable, CustomTestStringConvertible {
        let status: Int
        let contentType: String?
        let body: String
        let contributes: Bool
        var testDescription: String { "\(status) \(contentType ?? "no Content-Type") \(body) -> \(contributes)" }
    }

    static let sampleCases: [SampleCase] = [
        SampleCase(status: 200, contentType: "application/json", body: #"{"a":1}"#, contributes: true),
        SampleCase(status: 201, contentType: "application/json; charset=utf-8", body: "[1]", contributes: true),
        SampleCase(status: 299, contentType: "application/problem+json", body: "{}", contributes: true),
        SampleCase(status: 200, contentType: "text/json", body: "{}", contributes: true),
        SampleCase(status: 200, contentType: nil, body: #"{"a":1}"#, contributes: true),
        SampleCase(status: 200, contentType: nil, body: "plain words", contributes: false),
        SampleCase(status: 200, contentType: "text/plain", body: #"{"a":1}"#, contributes: false),
        SampleCase(status: 200, contentType: "application/json", body: "{not json", contributes: false),
        SampleCase(status: 204, contentType: "application/json", body: "", contributes: false),
        SampleCase(status: 404, contentType: "application/json", body: #"{"error":"not found"}"#, contributes: false),
        SampleCase(status: 500, contentType: "application/json", body: #"{"error":"boom"}"#, contributes: false),
        SampleCase(status: 304, contentType: "application/json", body: "{}", contributes: false),
    ]

    @Test("only 2xx responses with JSON bodies are samples", arguments: sampleCases)
    func samplesAre2xxJSON(_ testCase: SampleCase) {
        var headers: HTTPFields = [:]
        if let contentType = testCase.contentType { headers[.contentType] = contentType }
        let interaction = Recordings.make(.get, "/api/thing", status: testCase.status, responseHeaders: headers, body: Data(testCase.body.utf8))
        var schemas = EndpointSchemas()
        #expect(schemas.add(interaction) == testCase.contributes)
        #expect(schemas.isEmpty == !testCase.contributes)
    }

    @Test func groupsRecordingsByDerivedPatternAndMergesTheirSchemas() throws {
        let schemas = EndpointSchemas(interactions: [
            Recordings.make(.get, "/api/users/1", body: Recordings.json(#"{"id":1,"nickname":"ada"}"#)),
            Recordings.make(.get, "/api/users/2", body: Recordings.json(#"{"id":2,"nickname":null}"#)),
            Recordings.make(.get, "/api/users?limit=10", body: Recordings.json(#"{"users":[]}"#)),
            Recordings.make(.delete, "/api/users/3", status: 204, body: Data()),
        ])
        #expect(
            schemas.endpoints == [
                Endpoint(method: .get, pattern: "/api/users"),
                Endpoint(method: .get, pattern: "/api/users/{id}"),
            ])
        let users = try #require(schemas[Endpoint(method: .get, pattern: "/api/users/{id}")])
        #expect(users.recordings == 2)
        #expect(users.schema.requiredProperties == ["id", "nickname"])
        #expect(users.schema.properties["nickname"]?.description == "string | null")
        #expect(users.paths == [RequestPath(percentEncodedPath: "/api/users/1"), RequestPath(percentEncodedPath: "/api/users/2")])
    }

    @Test func registryPatternsWinOverDerivedOnes() throws {
        let registry = MockResponseRegistry(registrations: [
            try MockRoute(method: .get, path: "/api/users/{userId}", fixture: "user"),
            try MockRoute(method: .get, path: "/api/foods/{name}", fixture: "food"),
        ])
        let schemas = EndpointSchemas(
            interactions: [
                Recordings.make(.get, "/api/users/7"),
                Recordings.make(.get, "/api/foods/banana"),
                Recordings.make(.get, "/api/meals/9"),
            ], registry: registry)
        #expect(schemas.endpoints.map(\.description) == ["GET /api/foods/{name}", "GET /api/meals/{id}", "GET /api/users/{userId}"])
        #expect(schemas.registeredFixture(for: Endpoint(method: .get, pattern: "/api/foods/{name}")) == "food")
        #expect(schemas.registeredFixture(for: Endpoint(method: .get, pattern: "/api/meals/{id}")) == nil)
    }

    @Test func fallbackNamesAreTheEndpointsAndEachRecordedPaths() {
        let schemas = EndpointSchemas(interactions: [
            Recordings.make(.get, "/api/users/1"),
            Recordings.make(.get, "/api/users/2?verbose=1"),
        ])
        #expect(
            schemas.fallbackFixtureNames(for: Endpoint(method: .get, pattern: "/api/users/{id}")) == [
                "mock_api_users_id_get", "mock_api_users_1_get", "mock_api_users_2_get",
            ])
    }

    @Test(
        "JSON media types",
        arguments: [
            ("application/json", true), ("Application/JSON ; charset=utf-8", true), ("application/vnd.api+json", true),
            ("text/json", true), ("", true), ("text/html", false), ("application/jsonp", false), ("json", false),
        ])
    func jsonMediaTypes(_ contentType: String, _ isJSON: Bool) {
        #expect(JSONBodies.isJSONMediaType(contentType) == isJSON)
    }
}
