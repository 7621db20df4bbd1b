import Foundation
import WellPlateCore
import WellPlateNetworking

/// The OpenAPI operation of a GraphQL URL (`POST /graphql`). OpenAPI has one operation per path
/// and method, which every GraphQL operation shares, so each recorded GraphQL operation is one
/// alternative (`anyOf`) of the request body and of each response, its schema named by
/// `x-graphql-operation` (`query GetUser`) and its example by the operation's name; the
/// operation lists them in `x-graphql-operations` (docs/graphql.md).
///
/// `anyOf`, not `oneOf`: a request names its operation in a document (or `operationName`, which
/// clients may leave out) that a schema cannot tell apart, and an answer names none, so two
/// alternatives can both describe one body.
struct OpenAPIGraphQLOperation {
    /// The GraphQL operations recorded at the path, in `Endpoint` order.
    let operations: [RecordedOperations.Operation]
    let redactor: Redactor

    func object(path: String, operationID: String) -> JSONObject {
        var listed: [JSONValue] = []
        var requests: [JSONValue] = []
        var requestExamples = JSONObject()
        var statuses: Set<Int> = []
        for operation in operations {
            let (label, name) = Self.names(operation)
            listed.append(["name": .string(name), "type": .string(String(label.prefix { $0 != " " })), "recordings": .integer(Int64(operation.count))])
            requests.append(.object(request(operation, label: label, name: name)))
            var example: JSONObject = ["operationName": .string(name)]
            if let document = operation.graphQLDocument { example["query"] = .string(document) }
            if let variables = operation.requestBodies["application/json"]?.example { example["variables"] = redactor.redact(json: variables) }
            requestExamples[name] = .object(["summary": .string(label), "value": .object(example)])
            statuses.formUnion(operation.statuses)
        }
        let recordings = operations.reduce(0) { $0 + $1.count }
        let count = operations.count
        return [
            "operationId": .string(operationID),
            "summary": .string("POST \(path): \(count) GraphQL operation\(count == 1 ? "" : "s")"),
            "description": .string(
                "\(recordings) recording\(recordings == 1 ? "" : "s") of \(operations.map { Self.names($0).label }.joined(separator: ", ")). "
                    + "Every GraphQL operation is sent to this one path and method: each is one alternative (anyOf) of the request body and "
                    + "of each response, named by x-graphql-operation. The GET form (JSON in query parameters) is the same operation."),
            "x-graphql-operations": .array(listed),
            "requestBody": [
                "required": true,
                "content": ["application/json": ["schema": ["anyOf": .array(requests)], "examples": .object(requestExamples)]],
            ],
            "responses": .object(responses(statuses: statuses.sorted())),
        ]
    }

    /// The request body of one operation: its document (or, left out, a persisted-query hash in
    /// `extensions`), its name, and its variables as recorded.
    private func request(_ operation: RecordedOperations.Operation, label: String, name: String) -> JSONObject {
        let variables = operation.requestBodies["application/json"].map { OpenAPIDocumentBuilder.schema($0.schema) } ?? ["type": "object"]
        return [
            "title": .string(name),
            "x-graphql-operation": .string(label),
            "type": "object",
            "properties": [
                "query": ["type": "string", "description": "The document; left out when extensions.persistedQuery names it by its hash."],
                "operationName": ["type": "string", "const": .string(name)],
                "variables": .object(variables),
                "extensions": ["type": "object"],
            ],
        ]
    }

    /// Per status, an alternative per operation that answered with it: `data` as recorded, and
    /// the `errors` any GraphQL answer may carry.
    private func responses(statuses: [Int]) -> JSONObject {
        var responses = JSONObject()
        for status in statuses {
            var alternatives: [JSONValue] = []
            var examples = JSONObject()
            var recordings = 0
            for operation in operations {
                let bodies = operation.responses[status] ?? [:]
                recordings += bodies.values.reduce(operation.emptyResponses[status] ?? 0) { $0 + $1.count }
                guard let body = bodies["application/json"] else { continue }
                let (label, name) = Self.names(operation)
                alternatives.append(
                    [
                        "title": .string(name),
                        "x-graphql-operation": .string(label),
                        "type": "object",
                        "properties": [
                            "data": .object(OpenAPIDocumentBuilder.schema(body.schema)),
                            "errors": ["type": "array", "items": ["type": "object"]],
                        ],
                    ])
                if let example = body.example {
                    examples[name] = .object(["summary": .string(label), "value": .object(["data": redactor.redact(json: example)])])
                }
            }
            let reason = StatusReason.phrase(status) ?? "Status \(status)"
            var response: JSONObject = ["description": .string("\(reason) (\(recordings) recording\(recordings == 1 ? "" : "s"))")]
            if !alternatives.isEmpty {
                response["content"] = ["application/json": ["schema": ["anyOf": .array(alternatives)], "examples": .object(examples)]]
            }
            responses[String(status)] = .object(response)
        }
        return responses
    }

    /// `query GetUser` and `GetUser`.
    private static func names(_ operation: RecordedOperations.Operation) -> (label: String, name: String) {
        (operation.endpoint.operation ?? "", operation.endpoint.operationName ?? "")
    }
}
