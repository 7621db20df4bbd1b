import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// The inferred response schema of every recorded endpoint: the recorded side of a drift check
/// and the source of `cassette schema`.
///
/// Interactions are grouped by `Endpoint.of(method:url:registry:)`, so a registry's patterns win
/// over derived ones. Only successful responses describe the contract a model decodes, so only
/// 2xx responses with a JSON body contribute: a JSON Content-Type (`application/json`, `…/json`,
/// `…+json`), or no Content-Type and a body that parses. Error pages, empty bodies and JSON that
/// does not parse are left out rather than reported: they are not samples of the shape. A JSON
/// text sequence (`application/json-seq`: a gRPC call's response messages, a GraphQL
/// subscription's payloads) is one recording with a sample per text, so `recordings` counts
/// answers, not messages.
package struct EndpointSchemas: Sendable {
    /// What one endpoint's recordings had in common.
    package struct Samples: Sendable, Hashable {
        /// The schema of every contributing response body.
        package internal(set) var schema = InferredSchema()
        /// How many recordings contributed.
        package internal(set) var recordings = 0
        /// The concrete request paths recorded, which give the design's fallback fixture names.
        package internal(set) var paths: Set<RequestPath> = []
        /// GraphQL answers with an `errors` array, and up to three of their first messages.
        package internal(set) var graphQLErrors = 0
        package internal(set) var graphQLErrorMessages: Set<String> = []
    }

    /// The registry whose patterns group the recordings, when there is one.
    package let registry: MockResponseRegistry?
    /// Endpoints with at least one contributing recording.
    package internal(set) var samples: [Endpoint: Samples] = [:]

    package init(registry: MockResponseRegistry? = nil) {
        self.registry = registry
    }

    package init(interactions: some Sequence<Interaction>, registry: MockResponseRegistry? = nil) {
        self.init(registry: registry)
        for interaction in interactions {
            add(interaction)
        }
    }

    /// Adds one recording; returns whether it contributed a sample (a 2xx JSON response with a
    /// URL that parses).
    /// A JSON text sequence (a gRPC call's response messages, `GRPCEndpoints`; a subscription's
    /// payloads, `ConversationSamples`) is one recording whose texts are each a sample.
    @discardableResult
    package mutating func add(_ interaction: Interaction) -> Bool {
        guard let bodies = JSONBodies.successSequence(of: interaction) ?? JSONBodies.successBody(of: interaction).map({ [$0] }),
            let url = URL(string: interaction.url), let endpoint = Endpoint.of(recording: interaction, registry: registry)
        else { return false }
        guard endpoint.operation != nil else {
            samples[endpoint, default: Samples()].add(bodies, path: RequestPath(url: url))
            return true
        }
        return addGraphQL(bodies, to: endpoint, path: RequestPath(url: url))
    }

    /// One recording of a GraphQL operation whose answers are `bodies` (a subscription's payloads,
    /// or one answer). Its shape is their `data`; an `errors` array is counted, not inferred, so a
    /// field that failed is reported as an error rather than as drift.
    private mutating func addGraphQL(_ bodies: [JSONValue], to endpoint: Endpoint, path: RequestPath) -> Bool {
        var entry = samples[endpoint, default: Samples()]
        let errors = bodies.compactMap { $0["errors"]?.arrayValue }.filter { !$0.isEmpty }
        if !errors.isEmpty { entry.graphQLErrors += 1 }
        for message in errors.compactMap({ $0.first?["message"]?.stringValue }) where entry.graphQLErrorMessages.count < 3 {
            entry.graphQLErrorMessages.insert(message)
        }
        let data = bodies.compactMap { $0["data"] }.filter { $0.objectValue != nil }
        if !data.isEmpty { entry.add(data, path: path) }
        guard entry.recordings > 0 else { return false }
        samples[endpoint] = entry
        return true
    }

    /// The endpoints in `Endpoint` order (pattern, then method).
    package var endpoints: [Endpoint] { samples.keys.sorted() }

    package var isEmpty: Bool { samples.isEmpty }

    package subscript(endpoint: Endpoint) -> Samples? { samples[endpoint] }

    /// The names a fixture for `endpoint` may have when no registry route names it: the endpoint's
    /// `fixtureName` and the design's default name of every concrete path recorded
    /// (`mock_api_users_id_get`, `mock_api_users_1_get`).
    package func fallbackFixtureNames(for endpoint: Endpoint) -> Set<String> {
        var names: Set<String> = [endpoint.fixtureName]
        // The path's name is every operation's: only the operation's own name picks its fixture.
        if endpoint.operation != nil { return names }
        for path in samples[endpoint]?.paths ?? [] {
            names.insert(MockResponseRegistry.defaultFixtureName(for: path, method: endpoint.method))
        }
        return names
    }

    /// The registry's fixture for `endpoint`: the route with exactly its method and pattern (and
    /// GraphQL operation name, with no variables).
    package func registeredFixture(for endpoint: Endpoint) -> String? {
        registry?.registrations.first(where: endpoint.isAnswered(by:))?.fixture
    }
}

extension EndpointSchemas.Samples {
    mutating func add(_ body: JSONValue, path: RequestPath) {
        add([body], path: path)
    }

    /// One recording whose answer is `bodies` (one, or a stream's messages).
    mutating func add(_ bodies: [JSONValue], path: RequestPath) {
        for body in bodies { schema.add(body) }
        recordings += 1
        paths.insert(path)
    }
}
