import Foundation
import WellPlateCore

/// One mapping from a request (method and path pattern, and for GraphQL an operation) to the
/// fixture that answers it.
public struct MockRoute: Sendable, Hashable, CustomStringConvertible {
    /// The request method the route answers.
    public let method: HTTPMethod
    /// The path pattern the route answers.
    public let pattern: PathPattern
    /// The fixture's name: its file name without `.json`, relative to the fixtures directory.
    public let fixture: String
    /// The GraphQL operation name (`GetUser`) the route answers, or `nil` for a route that answers
    /// every request to its path. One GraphQL URL serves many operations: a route with an
    /// operation answers only requests that carry it (`operationName`, else the document's
    /// operation), sent by POST or by Apollo's GET form alike.
    public let operation: String?
    /// For a GraphQL route, the variables it is for: a JSON object whose every member must equal
    /// the request's variable of that name (`{"id": "1"}`); `nil` for any variables.
    public let variables: JSONValue?

    /// A route from a parsed pattern; throws `MockRegistryError` when `fixture` is not a usable
    /// fixture name, `operation` is empty, or `variables` is not an object (or is given without an operation).
    public init(
        method: HTTPMethod, pattern: PathPattern, operation: String? = nil, variables: JSONValue? = nil, fixture: String
    ) throws(MockRegistryError) {
        try Self.validate(fixture: fixture)
        try Self.validate(operation: operation)
        try Self.validate(variables: variables, operation: operation)
        self.method = method
        self.pattern = pattern
        self.fixture = fixture
        self.operation = operation
        self.variables = variables
    }

    /// - Throws: `MockRegistryError` for a malformed pattern, fixture name, operation or variables.
    public init(method: HTTPMethod, path: String, operation: String? = nil, variables: JSONValue? = nil, fixture: String) throws(MockRegistryError) {
        try self.init(method: method, pattern: PathPattern(path), operation: operation, variables: variables, fixture: fixture)
    }

    /// The pattern as written.
    public var path: String { pattern.text }

    /// `GET /api/users/{id} -> users_id_get`; `POST /graphql GetUser {"id":"1"} -> getuser_1` for a GraphQL route.
    public var description: String { "\(request) -> \(fixture)" }

    /// The requests the route answers: `GET /api/users/{id}`, `POST /graphql GetUser {"id":"1"}`.
    var request: String {
        [method.rawValue, path, operation, variables?.compactJSON].compactMap { $0 }.joined(separator: " ")
    }

    /// Sorted by path (code point order), then method, then operation and variables: the order of `registry.json`.
    static func fileOrder(_ lhs: MockRoute, _ rhs: MockRoute) -> Bool {
        if lhs.path != rhs.path { return lhs.path.utf8.lexicographicallyPrecedes(rhs.path.utf8) }
        if lhs.method != rhs.method { return lhs.method.rawValue < rhs.method.rawValue }
        let left = (lhs.operation ?? "", lhs.variables?.jsonString(options: .sortedKeys) ?? "")
        let right = (rhs.operation ?? "", rhs.variables?.jsonString(options: .sortedKeys) ?? "")
        return left.0 != right.0 ? left.0.utf8.lexicographicallyPrecedes(right.0.utf8) : left.1.utf8.lexicographicallyPrecedes(right.1.utf8)
    }

    /// Whether `other` answers the same requests: the same method, pattern shape, operation and variables.
    func isSameRequest(as other: MockRoute) -> Bool {
        method == other.method && pattern.shape == other.pattern.shape && operation == other.operation && variables == other.variables
    }

    /// Whether the route's variables are all among `sent` with equal values.
    func acceptsVariables(_ sent: JSONValue?) -> Bool {
        guard let wanted = variables?.objectValue else { return true }
        let given = sent?.objectValue
        return wanted.allSatisfy { member in given?[member.key] == member.value }
    }

    /// An operation is a GraphQL name, so one word.
    static func validate(operation: String?) throws(MockRegistryError) {
        if let operation, operation.isEmpty || operation.contains(where: \.isWhitespace) {
            throw MockRegistryError(problem: "operation \(PathPattern.quoted(operation)) is not a GraphQL operation name such as \"GetUser\"")
        }
    }

    /// Variables are an object, and only for an operation.
    static func validate(variables: JSONValue?, operation: String?) throws(MockRegistryError) {
        guard let variables else { return }
        guard operation != nil else {
            throw MockRegistryError(problem: "variables are given without an operation; add the GraphQL operation name they belong to")
        }
        guard variables.objectValue != nil else {
            throw MockRegistryError(problem: "variables must be a JSON object such as {\"id\": \"1\"}, not \(variables.compactJSON)")
        }
    }

    /// Fixture names become file paths, so they must stay inside the fixtures directory.
    static func validate(fixture name: String) throws(MockRegistryError) {
        if let problem = MockDataLoader.problem(withFixtureName: name) {
            throw MockRegistryError(problem: "fixture name \(PathPattern.quoted(name)) \(problem)")
        }
    }
}
