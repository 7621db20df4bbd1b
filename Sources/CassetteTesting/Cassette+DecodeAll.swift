import Foundation
import WellPlateCore
import WellPlateNetworking

extension Cassette {
    /// Decodes every recorded 2xx body of `endpoint` (`"GET /api/users/{id}"`: a method and a
    /// path pattern whose `{name}` segments match any one segment) as `T`, with the clients' JSON
    /// decoding (ISO-8601 dates), and returns the values in recording order.
    ///
    /// - Parameters:
    ///   - type: the app's model, decoded from each body.
    ///   - endpoint: a method and a path pattern, such as `"GET /api/users/{id}"`.
    ///   - store: the store file; relative paths are taken from the working directory.
    ///   - cassette: one cassette, or `nil` for every cassette in the store.
    /// - Throws: `ContractViolation` listing every recording that does not decode (its key, the
    ///   JSON path and the reason), or saying that the endpoint has no 2xx recording at all, so
    ///   a renamed endpoint cannot pass by checking nothing.
    @discardableResult
    public static func decodeAll<T: Decodable>(
        _ type: T.Type, endpoint: String, store: String = CassetteStore.defaultPath, cassette: String? = nil
    ) async throws -> [T] {
        let (method, pattern) = try parse(endpoint: endpoint)
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let interactions: [Interaction]
        do {
            interactions = try await opened.interactions(cassette: cassette)
            try await opened.close()
        } catch {
            try? await opened.close()
            throw error
        }
        let matching = interactions.filter { interaction in
            guard interaction.method == method, (200..<300).contains(interaction.statusCode), let url = URL(string: interaction.url) else { return false }
            return pattern.match(RequestPath(url: url)) != nil
        }
        guard !matching.isEmpty else {
            let scope = cassette.map { "cassette \"\($0)\" of \(store)" } ?? store
            throw ContractViolation(
                endpoint: endpoint, typeName: String(reflecting: T.self), failures: [],
                message: "\(scope) has no 2xx recording of \(endpoint); record one, or correct the endpoint if it was renamed")
        }
        var values: [T] = []
        var failures: [ContractViolation.Failure] = []
        for interaction in matching {
            do {
                values.append(try ResponseDecoding.decode(T.self, from: interaction.responseBody, statusCode: interaction.statusCode))
            } catch APIError.decodingError(let error as ResponseDecodingError) {
                failures.append(
                    .init(cassette: interaction.cassette, key: interaction.key, sequence: interaction.sequence, path: error.path, reason: error.reason))
            } catch APIError.noData {
                failures.append(
                    .init(cassette: interaction.cassette, key: interaction.key, sequence: interaction.sequence, path: "$", reason: "the body is empty"))
            }
        }
        guard failures.isEmpty else {
            throw ContractViolation(endpoint: endpoint, typeName: String(reflecting: T.self), failures: failures, message: nil)
        }
        return values
    }

    private static func parse(endpoint: String) throws -> (HTTPMethod, PathPattern) {
        let parts = endpoint.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, let method = HTTPMethod(token: String(parts[0])) else {
            throw ContractViolation(
                endpoint: endpoint, typeName: "", failures: [], message: "endpoint \"\(endpoint)\" is not \"METHOD /path\"; write it as \"GET /api/users/{id}\""
            )
        }
        do {
            return (method, try PathPattern(String(parts[1]).trimmingCharacters(in: .whitespaces)))
        } catch {
            throw ContractViolation(endpoint: endpoint, typeName: "", failures: [], message: "endpoint \"\(endpoint)\": \(error)")
        }
    }
}

/// Recordings of an endpoint that the app's model type cannot decode: the contract between the
/// app and the recorded API is broken (or there is nothing recorded to check).
public struct ContractViolation: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// One recording that did not decode, and why.
    public struct Failure: Sendable, Equatable, CustomStringConvertible {
        /// The cassette holding the recording.
        public var cassette: String
        /// The recording's request key.
        public var key: String
        /// The recording's position among the recordings of its key.
        public var sequence: Int
        /// Where in the body decoding failed, such as `$.items[2].price`.
        public var path: String
        /// Why the value there did not decode, in the decoder's words.
        public var reason: String

        /// `key #sequence in cassette "name": at path: reason`.
        public var description: String {
            "\(key) #\(sequence) in cassette \"\(cassette)\": at \(path): \(reason)"
        }
    }

    /// The endpoint as passed to `decodeAll`, such as `GET /api/users/{id}`.
    public let endpoint: String
    /// The fully qualified name of the model type; empty when the endpoint itself is malformed.
    public let typeName: String
    /// Every recording that failed; empty when the error is about the endpoint itself.
    public let failures: [Failure]
    let message: String?

    /// Every failing recording, or what is wrong with the endpoint.
    public var description: String {
        if let message { return message }
        return "\(failures.count) recording(s) of \(endpoint) do not decode as \(typeName): " + failures.map(\.description).joined(separator: "; ")
    }

    /// The same text as `description`.
    public var errorDescription: String? { description }
}
