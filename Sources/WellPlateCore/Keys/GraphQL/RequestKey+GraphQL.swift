import Foundation
import HTTPTypes

extension RequestKey {
    /// The key the same GraphQL request has when a client sends each document by its persisted
    /// hash alone (automatic persisted queries), or `nil` when the request carries no document at
    /// a GraphQL path. A recording made with the document answers such a request.
    package static func graphQLHashOnly(
        method: HTTPMethod, target: String, headerFields: HTTPFields, body: Data?, rules: MatchingRules
    ) -> RequestKey? {
        let normalized = URLNormalizer.normalize(target: target, rules: rules)
        guard rules.graphQLPaths.contains(normalized.path),
            let request = GraphQLRequest(
                method: method, query: normalized.query, body: body, headerName: headerFields[GraphQLOperation.operationNameField]),
            let hashOnly = request.hashOnly
        else { return nil }
        return RequestKey(graphQL: hashOnly, normalized: normalized, headerFields: headerFields, rules: rules)
    }
}

extension Interaction {
    /// Whether the response is a GraphQL server's `PersistedQueryNotFound` error: the answer to a
    /// hash the server did not know yet, recorded but never the answer to choose when the
    /// operation was also recorded with its document.
    package var isPersistedQueryNotFound: Bool {
        guard responseBody.count < 4096 else { return false }
        let text = String(decoding: responseBody, as: UTF8.self)
        return text.contains("PersistedQueryNotFound") || text.contains("PERSISTED_QUERY_NOT_FOUND")
    }
}
