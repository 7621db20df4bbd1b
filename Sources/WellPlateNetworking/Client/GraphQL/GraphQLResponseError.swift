import Foundation

/// A GraphQL answer that gives no usable `data`: it carries `errors`, or it has neither `data`
/// nor `errors`. Thrown by `APIClientProtocol.graphQL(url:query:operationName:variables:headers:dataType:)`.
///
/// A GraphQL server answers `200 OK` to an operation that failed: its failures are in the body,
/// so the client turns them into this error instead of decoding `data` that is `null` or partial.
public struct GraphQLResponseError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The operation that was sent, when it was named.
    public let operationName: String?
    /// The answer's `errors`, in order; empty when the answer had neither `data` nor `errors`.
    public let errors: [GraphQLError]

    /// An error from its parts.
    public init(operationName: String?, errors: [GraphQLError]) {
        self.operationName = operationName
        self.errors = errors
    }

    /// Whether the server asked for the document of a hash-only request (automatic persisted queries).
    public var isPersistedQueryNotFound: Bool {
        errors.contains { $0.code == "PERSISTED_QUERY_NOT_FOUND" || $0.message == "PersistedQueryNotFound" }
    }

    /// `GraphQL operation GetUser failed: <message>; <message>`.
    public var description: String {
        let operation = operationName.map { "GraphQL operation \($0)" } ?? "GraphQL operation"
        guard !errors.isEmpty else { return "\(operation) answered neither data nor errors; check that the URL is a GraphQL endpoint" }
        return "\(operation) failed: \(errors.map(\.description).joined(separator: "; "))"
    }

    /// The same text as `description`.
    public var errorDescription: String? { description }
}
