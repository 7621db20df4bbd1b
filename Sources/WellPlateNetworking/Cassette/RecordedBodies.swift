import Foundation
import WellPlateCore

/// The recorded bodies a generated model must decode: what the test suite that
/// `cassette codegen swift --tests` writes reads from the store.
public enum RecordedBodies {
    /// Which side of an exchange a body comes from.
    public enum Role: String, Sendable, Hashable {
        /// 2xx JSON response bodies.
        case response
        /// JSON request bodies.
        case request
    }

    /// The 2xx JSON response bodies (`.response`) or JSON request bodies (`.request`) of
    /// `endpoint` (`"GET /api/users/{id}"`) in one cassette, grouped as the generator grouped them.
    /// For a GraphQL operation (`"POST /graphql query GetUser"`): each answer's `data`, or each
    /// request's variables.
    ///
    /// - Throws: `InvalidEndpoint` when `endpoint` is not `METHOD /pattern`, `CassetteStoreError`
    ///   when the store cannot be read.
    public static func load(storePath: String, cassette: String, endpoint: String, role: Role) async throws -> [Data] {
        guard let wanted = Endpoint(description: endpoint) else {
            throw InvalidEndpoint(text: endpoint)
        }
        let store = try await CassetteStore.open(path: storePath, access: .readOnly)
        let interactions: [Interaction]
        do {
            interactions = try await store.interactions(cassette: cassette)
            try await store.close()
        } catch {
            try? await store.close()
            throw error
        }
        return bodies(of: interactions, endpoint: wanted, role: role)
    }

    package static func bodies(of interactions: [Interaction], endpoint: Endpoint, role: Role) -> [Data] {
        interactions.compactMap { interaction -> Data? in
            guard let url = URL(string: interaction.url) else { return nil }
            if endpoint.operation != nil {
                return graphQLBody(of: interaction, url: url, endpoint: endpoint, role: role)
            }
            guard Endpoint.of(method: interaction.method, url: url) == endpoint else { return nil }
            switch role {
            case .response:
                return JSONBodies.successBody(of: interaction) == nil ? nil : interaction.responseBody
            case .request:
                guard let body = interaction.requestBody, !body.isEmpty else { return nil }
                return JSONBodies.classify(body, contentType: interaction.requestHeaders[.contentType]).1 == nil ? nil : body
            }
        }
    }
}

extension RecordedBodies {
    /// A GraphQL operation's model describes its `data` and its variables, not the envelope and
    /// the request body that carry them (`cassette codegen swift` generates `GetUserQuery.Data`).
    static func graphQLBody(of interaction: Interaction, url: URL, endpoint: Endpoint, role: Role) -> Data? {
        guard !interaction.isPersistedQueryNotFound, Endpoint.of(recording: interaction) == endpoint else { return nil }
        switch role {
        case .response:
            return JSONBodies.graphQLData(of: interaction)?.jsonData()
        case .request:
            return GraphQLRequest.singleOperation(method: interaction.method, url: url, body: interaction.requestBody)?.variables?.jsonData()
        }
    }
}

/// An endpoint that is not written `METHOD /pattern`.
public struct InvalidEndpoint: Error, Sendable, CustomStringConvertible {
    /// The text as given.
    public let text: String
    /// The text and what an endpoint should look like.
    public var description: String { "\"\(text)\" is not an endpoint such as GET /api/users/{id}; regenerate the tests" }
}
