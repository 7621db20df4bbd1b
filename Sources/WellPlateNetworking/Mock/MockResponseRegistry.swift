import Foundation
import Synchronization
import WellPlateCore

/// Maps requests (method and path pattern, and for GraphQL the operation) to fixture names for
/// `MockAPIClient`.
///
/// Lookup order: an exact path (no parameters) wins over any pattern; among patterns the one with
/// fewer parameters wins, then the one with the longer literal prefix, then the tie-break of
/// `PathPattern.isMoreSpecific` (segment by segment, literals before parameters, literals in code
/// point order). The result never depends on registration order. Registering the same method and
/// pattern again (parameter names aside) replaces the earlier fixture. Only the URL's path takes
/// part, percent-decoded per segment (`RequestPath`); the query is ignored.
///
/// GraphQL: one URL serves many operations, so a route may name an operation (and variables).
/// A request whose body (or Apollo GET form) carries a GraphQL operation is answered first by the
/// routes of that operation whose pattern matches its path, the route naming the most variables
/// winning among those whose variables all match; then, if none does, as any request to its path.
///
/// Safe to share: routes live behind a lock, so tests may register while a client answers.
public final class MockResponseRegistry: Sendable {
    /// A route that matched a request, with the values its parameters captured.
    public struct Match: Sendable, Equatable {
        /// The route that matched.
        public let route: MockRoute
        /// Parameter name to decoded segment: `["id": "42"]` for `/api/users/{id}`.
        public let parameters: [String: String]

        /// The name of the route's fixture.
        public var fixture: String { route.fixture }
        /// The route's path pattern.
        public var pattern: PathPattern { route.pattern }
    }

    private let table: Mutex<Routes>

    /// An empty registry.
    public init() {
        table = Mutex(Routes())
    }

    /// A registry holding `registrations`; a later route replaces an earlier one with the same
    /// method and pattern (and operation and variables).
    public init(registrations: [MockRoute]) {
        var routes = Routes()
        for route in registrations {
            routes.insert(route)
        }
        table = Mutex(routes)
    }

    /// Maps `method` and `path` (a pattern such as `/api/users/{id}`) to `fixture`, replacing an
    /// earlier mapping of the same method and pattern.
    /// - Throws: `MockRegistryError` for a malformed pattern or fixture name.
    public func register(path: String, method: HTTPMethod, fixture: String) throws(MockRegistryError) {
        register(try MockRoute(method: method, path: path, fixture: fixture))
    }

    /// Maps the GraphQL operation `operation` sent to `path` by `method` (and, when given, with
    /// `variables` among its variables) to `fixture`, replacing an earlier mapping of the same ones.
    /// - Throws: `MockRegistryError` for a malformed pattern, fixture name, operation or variables.
    public func register(
        path: String, method: HTTPMethod = .post, operation: String, variables: JSONValue? = nil, fixture: String
    ) throws(MockRegistryError) {
        register(try MockRoute(method: method, path: path, operation: operation, variables: variables, fixture: fixture))
    }

    /// Adds `route`, replacing an earlier route with the same method and pattern (and operation
    /// and variables).
    public func register(_ route: MockRoute) {
        table.withLock { $0.insert(route) }
    }

    /// Removes every route.
    public func removeAll() {
        table.withLock { $0.removeAll() }
    }

    /// Every route, sorted by path and then method (the order `registry.json` is written in).
    public var registrations: [MockRoute] {
        table.withLock { $0.paths.entries.map(\.value) + $0.operations }.sorted(by: MockRoute.fileOrder)
    }

    /// The route that answers `method` on `url`'s path, if one is registered.
    public func match(url: URL, method: HTTPMethod) -> Match? {
        match(path: RequestPath(url: url), method: method)
    }

    /// The route that answers `method` on `path`, if one is registered. Routes of GraphQL
    /// operations take no part: without a body there is no operation to match.
    public func match(path: RequestPath, method: HTTPMethod) -> Match? {
        guard let found = table.withLock({ $0.paths.match(path, method: method) }) else { return nil }
        return Match(route: found.entry.value, parameters: found.parameters)
    }

    /// The route that answers the request: a route of its GraphQL operation when `body` (or the
    /// GET form's query) carries one and such a route matches, else `match(url:method:)`.
    /// `headers` give the operation's name when neither `operationName` nor the document does
    /// (Apollo's `X-APOLLO-OPERATION-NAME`, sent with hash-only requests).
    public func match(url: URL, method: HTTPMethod, headers: [String: String]? = nil, body: Data?) -> Match? {
        let path = RequestPath(url: url)
        // Parsing a body costs; a registry without operation routes never needs it.
        if table.withLock({ !$0.operations.isEmpty }),
            let request = MockGraphQLRequest(url: url, method: method, headers: headers ?? [:], body: body),
            let found = match(request, path: path)
        {
            return found
        }
        return match(path: path, method: method)
    }

    private func match(_ request: MockGraphQLRequest, path: RequestPath) -> Match? {
        table.withLock { routes -> Match? in
            var best: (route: MockRoute, parameters: [String: String])?
            // A GET of an operation is the same request as its POST (docs/graphql.md).
            for route in routes.operations where route.operation == request.name && (route.method == request.method || route.method == .post) {
                guard route.acceptsVariables(request.variables), let parameters = route.pattern.match(path) else { continue }
                if let current = best?.route, !Self.isBetter(route, than: current, for: request.method) { continue }
                best = (route, parameters)
            }
            return best.map { Match(route: $0.route, parameters: $0.parameters) }
        }
    }

    /// More variables named first, then the request's own method, then the more specific pattern;
    /// so the choice never depends on registration order.
    private static func isBetter(_ route: MockRoute, than current: MockRoute, for method: HTTPMethod) -> Bool {
        let weight = route.variables?.objectValue?.count ?? 0, currentWeight = current.variables?.objectValue?.count ?? 0
        if weight != currentWeight { return weight > currentWeight }
        if (route.method == method) != (current.method == method) { return route.method == method }
        if route.pattern.shape != current.pattern.shape { return route.pattern.isMoreSpecific(than: current.pattern) }
        return MockRoute.fileOrder(route, current)
    }

    /// The mapped fixture, or the design documents' default name when nothing matches.
    public func fixtureName(for url: URL, method: HTTPMethod) -> String {
        match(url: url, method: method)?.fixture ?? Self.defaultFixtureName(for: url, method: method)
    }

    /// `mock` + the decoded path with `/` and `.` turned into `_` + `_` + the method in lower case:
    /// `GET /api/health` is `mock_api_health_get`, `GET /api/v1.2/users/` is `mock_api_v1_2_users__get`.
    /// A trailing slash is kept (as an `_`), as it is in matching.
    public static func defaultFixtureName(for url: URL, method: HTTPMethod) -> String {
        defaultFixtureName(for: RequestPath(url: url), method: method)
    }

    /// `defaultFixtureName(for:method:)` for a path already split and decoded.
    public static func defaultFixtureName(for path: RequestPath, method: HTTPMethod) -> String {
        let sanitized = path.description
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: ".", with: "_")
        return "mock\(sanitized)_\(method.rawValue.lowercased())"
    }

    /// Plain routes in a `RouteTable`; GraphQL operation routes in a list, scanned per request
    /// (a GraphQL app has tens of operations, not thousands).
    private struct Routes: Sendable {
        var paths = RouteTable<MockRoute>()
        var operations: [MockRoute] = []

        mutating func insert(_ route: MockRoute) {
            guard route.operation != nil else {
                paths.insert(route, method: route.method, pattern: route.pattern)
                return
            }
            if let position = operations.firstIndex(where: { $0.isSameRequest(as: route) }) {
                operations[position] = route
            } else {
                operations.append(route)
            }
        }

        mutating func removeAll() {
            paths.removeAll()
            operations.removeAll()
        }
    }
}
