import Foundation
import Testing

@testable import CassetteTools
@testable import WellPlateCore

/// The same path and method on two hosts: one operation describing both.
@Suite("OpenAPI operations of two hosts")
struct OpenAPIOperationMergeTests {
    static func operation(query: String, required: Bool, status: String, schema: JSONValue, body: JSONValue? = nil) -> JSONObject {
        var operation: JSONObject = [
            "operationId": "getV1Me", "description": "2 recordings.",
            "parameters": [
                ["name": "id", "in": "path", "required": true, "schema": ["type": "string"]],
                ["name": .string(query), "in": "query", "required": .bool(required), "schema": ["type": "string"]],
            ],
            "responses": [.init(stringLiteral: status): ["description": "OK", "content": ["application/json": ["schema": schema]]]],
        ]
        if let body { operation["requestBody"] = body }
        return operation
    }

    @Test func schemasThatDifferAreAnyOfAndEverythingElseIsTheUnion() {
        let api = Self.operation(query: "fields", required: true, status: "200", schema: ["type": "object", "properties": ["name": ["type": "string"]]])
        let auth = Self.operation(
            query: "scope", required: true, status: "200", schema: ["type": "object", "properties": ["session": ["type": "string"]]],
            body: ["required": true, "content": ["application/json": ["schema": ["type": "object"]]]])
        var authWith401 = auth
        authWith401["responses"] = [
            "200": auth["responses"]!["200"]!, "401": ["description": "Unauthorized"],
        ]
        let merged = OpenAPIOperationMerge.merge(api, authWith401, host: "https://auth.example.com")
        let alternatives = merged["responses"]?["200"]?["content"]?["application/json"]?["schema"]?["anyOf"]?.arrayValue ?? []
        #expect(alternatives.count == 2)
        #expect(merged["responses"]?["401"] != nil)
        #expect(merged["operationId"] == "getV1Me")
        #expect(merged["description"]?.stringValue == "2 recordings. https://auth.example.com: 2 recordings.")
        // Each host's query parameter is optional in the merged operation; the path one stays.
        let parameters = merged["parameters"]?.arrayValue ?? []
        #expect(parameters.map { $0["name"]?.stringValue } == ["id", "fields", "scope"])
        #expect(parameters.map { $0["required"] } == [true, false, false])
        // A body only one host takes is optional.
        #expect(merged["requestBody"]?["required"] == false)
    }

    @Test func theSameSchemaOnBothHostsStaysOneSchema() {
        let schema: JSONValue = ["type": "object", "properties": ["id": ["type": "integer"]]]
        let first = Self.operation(query: "q", required: true, status: "200", schema: schema)
        let merged = OpenAPIOperationMerge.merge(first, first, host: "https://b.example.com")
        #expect(merged["responses"]?["200"]?["content"]?["application/json"]?["schema"] == schema)
        #expect(merged["parameters"]?.arrayValue?.map { $0["required"] } == [true, true])
    }
}
