import Foundation
import WellPlateCore

/// The GraphQL operation a mocked request carries, as the registry matches it: its name and
/// variables, read by the same rules as the proxy's keys (`GraphQLOperation`, docs/graphql.md).
struct MockGraphQLRequest: Sendable {
    var method: HTTPMethod
    /// `operationName`, else the document's operation's name, else `X-APOLLO-OPERATION-NAME`.
    var name: String
    /// `nil` when absent, `null` or `{}`.
    var variables: JSONValue?

    /// `nil` when the request carries no single operation: no body, a body that is not a GraphQL
    /// request, or a batch (one fixture cannot answer several operations).
    init?(url: URL, method: HTTPMethod, headers: [String: String], body: Data?) {
        let headerName = headers.first { $0.key.caseInsensitiveCompare(GraphQLOperation.operationNameHeader) == .orderedSame }?.value
        guard let operation = GraphQLRequest.singleOperation(method: method, url: url, body: body, headerName: headerName) else { return nil }
        self.method = method
        name = operation.name
        variables = operation.variables
    }
}
