import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Every recorded exchange of a cassette, grouped by endpoint with everything a description of the
/// API needs: request and response bodies per status and media type (schemas inferred over all of
/// them, one example each), query parameters and path parameter values. The source of
/// `cassette codegen swift` and `cassette openapi`.
///
/// Grouping is `EndpointSchemas`'s (`Endpoint.of(method:url:registry:)`), so the three agree on
/// what an endpoint is. A body counts as JSON when its Content-Type is a JSON media type, or is
/// absent and the body parses; the example of a body group is its most recent recording (latest
/// `recordedAt`, then highest row id), so it does not depend on the order of the input.
package struct RecordedOperations: Sendable {
    /// The bodies of one media type: a request body, or the responses with one status.
    package struct Body: Sendable {
        /// The media type without parameters, lower-cased (`application/json`); `application/json`
        /// when the header was missing and the body parsed as JSON, else `application/octet-stream`.
        package internal(set) var mediaType: String
        /// Whether the bodies are JSON; only then are `schema` and `example` set.
        package internal(set) var isJSON: Bool
        package internal(set) var schema = InferredSchema()
        /// The most recent body, parsed (JSON) or `nil`.
        package internal(set) var example: JSONValue?
        /// The most recent body's text when it is not JSON and is valid UTF-8.
        package internal(set) var exampleText: String?
        package internal(set) var recordingIDs: [Int64] = []
        package internal(set) var count = 0
        var exampleTime: (Date, Int64) = (.distantPast, Int64.min)
    }

    /// One query parameter: how often it was sent and the schema of its values read as JSON
    /// scalars (`42` an integer, `true` a boolean, anything else a string).
    package struct Parameter: Sendable {
        package internal(set) var schema = InferredSchema()
        package internal(set) var count = 0
    }

    /// What one endpoint's recordings hold.
    package struct Operation: Sendable {
        package let endpoint: Endpoint
        /// Every recording of the endpoint, in row order.
        package internal(set) var recordingIDs: [Int64] = []
        package internal(set) var count = 0
        /// Request bodies by media type; requests without a body are counted apart.
        package internal(set) var requestBodies: [String: Body] = [:]
        package internal(set) var requestsWithoutBody = 0
        /// Responses by status, then media type; `emptyResponses` counts bodiless ones per status.
        package internal(set) var responses: [Int: [String: Body]] = [:]
        package internal(set) var emptyResponses: [Int: Int] = [:]
        package internal(set) var queryParameters: [String: Parameter] = [:]
        /// Values seen for each path parameter, in the order of the pattern's parameters.
        package internal(set) var pathParameters: [String: Parameter] = [:]
        /// For a GraphQL operation, the most recent recording's document, normalized
        /// (`GraphQLDocument.normalized`): an example of what a client sends.
        package internal(set) var graphQLDocument: String?
        var graphQLDocumentTime: (Date, Int64) = (.distantPast, Int64.min)

        init(endpoint: Endpoint) {
            self.endpoint = endpoint
        }

        /// Every status recorded, ascending.
        package var statuses: [Int] { Set(responses.keys).union(emptyResponses.keys).sorted() }

        /// The schema of every 2xx JSON response body: what a response model decodes.
        package var successSchema: InferredSchema {
            var schema = InferredSchema()
            for (status, bodies) in responses where (200..<300).contains(status) {
                for body in bodies.values where body.isJSON { schema.merge(body.schema) }
            }
            return schema
        }

        /// The recordings whose 2xx response body is JSON.
        package var successRecordingIDs: [Int64] {
            responses.filter { (200..<300).contains($0.key) }.values
                .flatMap { $0.values.filter(\.isJSON).flatMap(\.recordingIDs) }.sorted()
        }

        /// The schema of every JSON request body: what a request model encodes.
        package var requestSchema: InferredSchema {
            requestBodies.values.filter(\.isJSON).reduce(into: InferredSchema()) { $0.merge($1.schema) }
        }

        package var requestRecordingIDs: [Int64] {
            requestBodies.values.filter(\.isJSON).flatMap(\.recordingIDs).sorted()
        }
    }

    package let registry: MockResponseRegistry?
    /// Whether each GraphQL operation is an endpoint of its own (`POST /graphql query GetUser`),
    /// its request the operation's variables and its response the answer's `data`; otherwise a
    /// GraphQL URL is one endpoint like any other (OpenAPI has one operation per path and method).
    package let splitsGraphQLOperations: Bool
    package private(set) var operations: [Endpoint: Operation] = [:]

    /// Every interaction's schema folded into its endpoint's operation; `progress` hears of each
    /// one, against `interactions.underestimatedCount` (an array's count).
    package init(
        interactions: some Sequence<Interaction>, registry: MockResponseRegistry? = nil, splitsGraphQLOperations: Bool = false,
        progress: ProgressHandler? = nil
    ) {
        self.registry = registry
        self.splitsGraphQLOperations = splitsGraphQLOperations
        let total = progress == nil ? 0 : interactions.underestimatedCount
        var done = 0
        for interaction in interactions {
            add(interaction)
            done += 1
            progress?(done, total)
        }
    }

    /// The endpoints in `Endpoint` order.
    package var endpoints: [Endpoint] { operations.keys.sorted() }

    package subscript(endpoint: Endpoint) -> Operation? { operations[endpoint] }

    package mutating func add(_ interaction: Interaction) {
        guard let url = URL(string: interaction.url) else { return }
        if splitsGraphQLOperations, GraphQLKeyPart(inKey: interaction.key) != nil {
            // A batch, a hash-only request or PersistedQueryNotFound describes no operation of its own.
            if let endpoint = Self.graphQLEndpoint(of: interaction) { addGraphQL(interaction, url: url, endpoint: endpoint) }
            return
        }
        let endpoint = Endpoint.of(method: interaction.method, url: url, registry: registry)
        let id = interaction.id ?? 0
        let time = (interaction.recordedAt, id)
        var operation = operations[endpoint] ?? Operation(endpoint: endpoint)
        operation.count += 1
        operation.recordingIDs.append(id)

        if let body = interaction.requestBody, !body.isEmpty {
            let (mediaType, json) = JSONBodies.classify(body, contentType: interaction.requestHeaders[.contentType])
            operation.requestBodies[mediaType, default: Body(mediaType: mediaType, isJSON: json != nil)]
                .add(body, json: json, id: id, time: time)
        } else {
            operation.requestsWithoutBody += 1
        }

        if interaction.responseBody.isEmpty {
            operation.emptyResponses[interaction.statusCode, default: 0] += 1
        } else {
            let (mediaType, json) = JSONBodies.classify(interaction.responseBody, contentType: interaction.responseHeaders[.contentType])
            operation.responses[interaction.statusCode, default: [:]][mediaType, default: Body(mediaType: mediaType, isJSON: json != nil)]
                .add(interaction.responseBody, json: json, id: id, time: time)
        }

        for item in URLComponents(string: interaction.url)?.queryItems ?? [] {
            operation.queryParameters[item.name, default: Parameter()].add(item.value ?? "")
        }
        if let pattern = try? PathPattern(endpoint.pattern) {
            let values = RequestPath(url: url).segments
            for (segment, value) in zip(pattern.segments, values) {
                if case .parameter(let name) = segment {
                    operation.pathParameters[name, default: Parameter()].add(value)
                }
            }
        }
        operations[endpoint] = operation
    }
}

extension RecordedOperations {
    /// The endpoint of a recording of a typed GraphQL operation (`query GetUser`), or `nil`: a
    /// request that is not GraphQL, a batch, a hash-only request (its type is in the document it
    /// lacks, and the same operation recorded with the document describes it), and a
    /// `PersistedQueryNotFound` answer.
    package static func graphQLEndpoint(of interaction: Interaction) -> Endpoint? {
        guard let part = GraphQLKeyPart(inKey: interaction.key), part.kind != "batch", part.kind != "persisted",
            !interaction.isPersistedQueryNotFound
        else { return nil }
        return Endpoint.of(recording: interaction)
    }

    /// A GraphQL operation's recording: its variables as the request, its `data` as the response.
    private mutating func addGraphQL(_ interaction: Interaction, url: URL, endpoint: Endpoint) {
        let id = interaction.id ?? 0
        let time = (interaction.recordedAt, id)
        var operation = operations[endpoint] ?? Operation(endpoint: endpoint)
        operation.count += 1
        operation.recordingIDs.append(id)
        let sent = GraphQLRequest.singleOperation(
            method: interaction.method, url: url, body: interaction.requestBody,
            headerName: interaction.requestHeaders[GraphQLOperation.operationNameField])
        if let document = sent?.document, time > operation.graphQLDocumentTime {
            operation.graphQLDocument = document.normalized
            operation.graphQLDocumentTime = time
        }
        if let variables = sent?.variables {
            operation.requestBodies["application/json", default: Body(mediaType: "application/json", isJSON: true)]
                .add(variables.jsonData(), json: variables, id: id, time: time)
        } else {
            operation.requestsWithoutBody += 1
        }
        if let data = JSONBodies.graphQLData(of: interaction) {
            operation.responses[interaction.statusCode, default: [:]]["application/json", default: Body(mediaType: "application/json", isJSON: true)]
                .add(data.jsonData(), json: data, id: id, time: time)
        } else {
            operation.emptyResponses[interaction.statusCode, default: 0] += 1
        }
        operations[endpoint] = operation
    }
}

extension RecordedOperations.Body {
    mutating func add(_ data: Data, json: JSONValue?, id: Int64, time: (Date, Int64)) {
        count += 1
        recordingIDs.append(id)
        if let json { schema.add(json) }
        if time > exampleTime {
            exampleTime = time
            example = json
            exampleText = json == nil ? String(validating: data, as: UTF8.self) : nil
        }
    }
}

extension RecordedOperations.Parameter {
    mutating func add(_ text: String) {
        count += 1
        schema.add(Self.scalar(text))
    }

    /// A query or path value as the JSON scalar it spells.
    static func scalar(_ text: String) -> JSONValue {
        if let integer = Int64(text) { return .integer(integer) }
        if text == "true" || text == "false" { return .bool(text == "true") }
        if text.contains("."), let number = Double(text), number.isFinite { return .number(number) }
        return .string(text)
    }
}
