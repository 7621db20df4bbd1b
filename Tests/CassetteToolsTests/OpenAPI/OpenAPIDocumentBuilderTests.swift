import Foundation
import TestSupport
import Testing

@testable import CassetteTools
@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("OpenAPI document")
struct OpenAPIDocumentBuilderTests {
    static let interactions: [Interaction] = [
        Recordings.make(.get, "/v2/api/items/1?lang=en&page=2", body: Recordings.json(#"{"id": 1, "price": 2.5}"#)),
        Recordings.make(.get, "/v2/api/items/2?page=3", body: Recordings.json(#"{"id": 2, "price": 3}"#)),
        Recordings.make(.get, "/v2/api/items/3", status: 404, body: Recordings.json(#"{"error": "gone"}"#)),
        Recordings.make(
            .post, "/v2/api/items", status: 201, requestHeaders: [.contentType: "application/json"], requestBody: Recordings.json(#"{"price": 1}"#),
            body: Recordings.json(#"{"id": 4, "price": 1}"#)),
        Recordings.make(.post, "/v2/api/items", status: 400, body: Recordings.json(#"{"error": "no body"}"#)),
    ]

    let document = OpenAPIDocumentBuilder(title: "Items", server: URL(string: "https://api.example.com/v2"))
        .document(RecordedOperations(interactions: interactions))

    @Test("the server's base path is taken off the paths")
    func basePath() {
        #expect(document["servers"]?[0]?["url"] == "https://api.example.com/v2")
        #expect(document["paths"]?["/api/items/{id}"] != nil)
        #expect(document["paths"]?["/v2/api/items/{id}"] == nil)
    }

    @Test("query parameters are typed and required only when every recording sent them")
    func queryParameters() {
        let parameters = document["paths"]?["/api/items/{id}"]?["get"]?["parameters"]
        #expect(parameters?[1] == ["name": "lang", "in": "query", "required": false, "schema": ["type": "string"]])
        #expect(parameters?[2] == ["name": "page", "in": "query", "required": false, "schema": ["type": "integer"]])
    }

    @Test("responses per status; integers and fractions merge to number; a body sometimes absent is optional")
    func responsesAndBodies() {
        let get = document["paths"]?["/api/items/{id}"]?["get"]
        #expect(get?["responses"]?["200"]?["content"]?["application/json"]?["schema"]?["properties"]?["price"] == ["type": "number"])
        #expect(get?["responses"]?["404"]?["description"] == "Not Found (1 recording)")
        let post = document["paths"]?["/api/items"]?["post"]
        #expect(post?["requestBody"]?["required"] == false)
        #expect(post?["requestBody"]?["content"]?["application/json"]?["example"] == ["price": 1])
        #expect(post?["responses"]?["201"] != nil && post?["responses"]?["400"] != nil)
        #expect(Set(["getApiItemsId", "postApiItems"]) == Set([get?["operationId"]?.stringValue, post?["operationId"]?.stringValue].compactMap { $0 }))
    }
}
