import Foundation

/// What a GraphQL request's body holds: the document, the operation's name and its variables,
/// as GraphQL over HTTP (and Apollo) sends them.
private struct GraphQLRequestBody<Variables: Encodable>: Encodable {
    let query: String
    let operationName: String?
    let variables: Variables?
}

/// Variables for an operation that takes none: left out of the body.
private struct NoVariables: Encodable {}

/// A GraphQL answer: `data` decoded as `Response` unless the answer carries `errors`, whose `data`
/// may be partial (null where a field failed) and is not decoded.
private struct GraphQLAnswer<Response: Decodable>: Decodable {
    let data: Response?
    let errors: [GraphQLError]

    private enum CodingKeys: String, CodingKey {
        case data, errors
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        errors = try container.decodeIfPresent([GraphQLError].self, forKey: .errors) ?? []
        data = errors.isEmpty ? try container.decodeIfPresent(Response.self, forKey: .data) : nil
    }
}

extension APIClientProtocol {
    /// Sends a GraphQL operation as a POST of `{"query", "operationName", "variables"}` to `url`
    /// and decodes the answer's `data` as `dataType`.
    ///
    /// Every client answers it its own way (`APIClient` from the network, `ReplayAPIClient` from a
    /// cassette, keyed by the operation and its canonical variables, `MockAPIClient` from the
    /// fixture its registry maps the operation to), with the same decoding and the same errors.
    /// - Throws: `GraphQLResponseError` when the answer carries `errors` or no `data`; the
    ///   client's errors otherwise (`APIError` for a failing status or an undecodable answer,
    ///   `CassetteMiss` when a replay has no recording).
    public func graphQL<Variables: Encodable & Sendable, Response: Decodable>(
        url: URL, query: String, operationName: String? = nil, variables: Variables, headers: [String: String]? = nil,
        dataType: Response.Type = Response.self
    ) async throws -> Response {
        let body = try encodeBody(GraphQLRequestBody(query: query, operationName: operationName, variables: variables))
        return try await sendGraphQL(url: url, operationName: operationName, headers: headers, body: body, dataType: dataType)
    }

    /// Sends a GraphQL operation that takes no variables and decodes the answer's `data` as
    /// `dataType`; see `graphQL(url:query:operationName:variables:headers:dataType:)`.
    public func graphQL<Response: Decodable>(
        url: URL, query: String, operationName: String? = nil, headers: [String: String]? = nil, dataType: Response.Type = Response.self
    ) async throws -> Response {
        let body = try encodeBody(GraphQLRequestBody<NoVariables>(query: query, operationName: operationName, variables: nil))
        return try await sendGraphQL(url: url, operationName: operationName, headers: headers, body: body, dataType: dataType)
    }

    private func sendGraphQL<Response: Decodable>(
        url: URL, operationName: String?, headers: [String: String]?, body: Data, dataType: Response.Type
    ) async throws -> Response {
        let answer = try await request(url: url, method: .post, headers: headers, body: body, responseType: GraphQLAnswer<Response>.self)
        guard answer.errors.isEmpty, let data = answer.data else {
            throw GraphQLResponseError(operationName: operationName, errors: answer.errors)
        }
        return data
    }
}
