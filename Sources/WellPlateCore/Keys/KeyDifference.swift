/// How a recorded key differs from the key of a request that found no recording, in words.
/// Produced by `RequestKey.nearest(to:among:limit:)`; the wording is listed in docs/matching.md.
/// Everything shown comes from the (redacted) keys, or from their canonical bodies with values of
/// secret-named fields hidden.
public struct KeyDifference: Sendable, Equatable, CustomStringConvertible {
    /// One difference. "missing" means the recording has something the request lacks;
    /// "not recorded" means the request has something the recording lacks.
    public enum Item: Sendable, Equatable, CustomStringConvertible {
        case method(request: HTTPMethod, recorded: HTTPMethod)
        case origin(request: String?, recorded: String?)
        case path(request: String, recorded: String)
        /// The parameter is in both, with different values (all values of a repeated name, in order).
        case queryValue(name: String, request: [String], recorded: [String])
        case queryParameterMissing(name: String)
        case queryParameterNotRecorded(name: String)
        case bodyMissing
        case bodyNotRecorded
        /// Both have a body with different fingerprints. `detail` names the first difference
        /// (`$.grams 100 vs 150`) when both canonical bodies are known.
        case body(detail: String?)
        /// A keyed header (conditional, or in `matchedHeaders`) differs; `nil` where it is absent.
        case header(name: String, request: String?, recorded: String?)
        /// The recorded response says it varies on these request headers (`Vary`), which the key
        /// does not include: the cause when the request differs only there.
        case recordingVaries(on: String)
        /// The GraphQL operations differ (`query GetUser` vs `query GetPost`); `nil` where one is not GraphQL.
        case operation(request: String?, recorded: String?)
        /// The same GraphQL operation with other variables or another document; `detail` names the
        /// first difference (`variables differ at $.id: recorded 1, got 2`) when both are known.
        case graphQL(operation: String, detail: String?)

        /// The difference in words, as listed in docs/matching.md.
        public var description: String {
            switch self {
            case let .method(request, recorded): "method \(request.rawValue) vs \(recorded.rawValue)"
            case let .origin(request, recorded): "host \(request ?? "(none)") vs \(recorded ?? "(none)")"
            case let .path(request, recorded): "path \(request) vs \(recorded)"
            case let .queryValue(name, request, recorded):
                "query parameter \(name): \(Self.values(request)) vs \(Self.values(recorded))"
            case let .queryParameterMissing(name): "query parameter \(name) missing"
            case let .queryParameterNotRecorded(name): "query parameter \(name) not recorded"
            case .bodyMissing: "body missing"
            case .bodyNotRecorded: "body not recorded"
            case let .body(detail): detail.map { "body differs: \($0)" } ?? "body differs"
            case let .header(name, request?, recorded?): "header \(name): \(request) vs \(recorded)"
            case let .header(name, nil, _): "header \(name) missing"
            case let .header(name, _, nil): "header \(name) not recorded"
            case let .operation(request, recorded): "operation \(request ?? "(none)") vs \(recorded ?? "(none)")"
            case let .graphQL(operation, detail): "\(operation): \(detail ?? "variables or document differ")"
            case let .recordingVaries(names): "the recorded response has Vary: \(names); add those headers to matchHeaders to record one answer per value"
            }
        }

        private static func values(_ values: [String]) -> String {
            values.count == 1 ? values[0] : "[" + values.joined(separator: ", ") + "]"
        }
    }

    /// The key of the request that was not found.
    public let request: RequestKey
    /// The stored key it was compared with.
    public let recorded: RequestKey
    /// In a fixed order: method, host, path, query parameters by name, body. Empty when the keys are equal.
    public let items: [Item]

    /// A difference with the given items, taken as they are.
    public init(request: RequestKey, recorded: RequestKey, items: [Item]) {
        self.request = request
        self.recorded = recorded
        self.items = items
    }

    /// Compares two keys.
    public init(request: RequestKey, recorded: RequestKey) {
        self.init(request: request, recorded: recorded, items: KeyComparison(request: request, recorded: recorded).items)
    }

    /// Whether the keys are equal.
    public var isIdentical: Bool { items.isEmpty }

    /// `<recorded key>: <difference>; <difference>`, e.g.
    /// `GET /api/users?limit=20: query parameter limit: 10 vs 20`.
    public var description: String {
        let differences = items.isEmpty ? "identical" : items.map(\.description).joined(separator: "; ")
        return "\(recorded.rawValue): \(differences)"
    }
}
