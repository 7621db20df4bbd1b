import Foundation
import Synchronization
import WellPlateCore

/// Maps requests (method and path pattern) to fixture names for `MockAPIClient`.
///
/// Lookup order: an exact path (no parameters) wins over any pattern; among patterns the one with
/// fewer parameters wins, then the one with the longer literal prefix, then the tie-break of
/// `PathPattern.isMoreSpecific` (segment by segment, literals before parameters, literals in code
/// point order). The result never depends on registration order. Registering the same method and
/// pattern again (parameter names aside) replaces the earlier fixture. Only the URL's path takes
/// part, percent-decoded per segment (`RequestPath`); the query is ignored.
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

    private let table: Mutex<RouteTable<MockRoute>>

    /// An empty registry.
    public init() {
        table = Mutex(RouteTable())
    }

    /// A registry holding `registrations`; a later route replaces an earlier one with the same
    /// method and pattern.
    public init(registrations: [MockRoute]) {
        var routes = RouteTable<MockRoute>()
        for route in registrations {
            routes.insert(route, method: route.method, pattern: route.pattern)
        }
        table = Mutex(routes)
    }

    /// Maps `method` and `path` (a pattern such as `/api/users/{id}`) to `fixture`, replacing an
    /// earlier mapping of the same method and pattern.
    /// - Throws: `MockRegistryError` for a malformed pattern or fixture name.
    public func register(path: String, method: HTTPMethod, fixture: String) throws(MockRegistryError) {
        register(try MockRoute(method: method, path: path, fixture: fixture))
    }

    /// Adds `route`, replacing an earlier route with the same method and pattern.
    public func register(_ route: MockRoute) {
        table.withLock { _ = $0.insert(route, method: route.method, pattern: route.pattern) }
    }

    /// Removes every route.
    public func removeAll() {
        table.withLock { $0.removeAll() }
    }

    /// Every route, sorted by path and then method (the order `registry.json` is written in).
    public var registrations: [MockRoute] {
        table.withLock { $0.entries.map(\.value) }.sorted(by: MockRoute.fileOrder)
    }

    /// The route that answers `method` on `url`'s path, if one is registered.
    public func match(url: URL, method: HTTPMethod) -> Match? {
        match(path: RequestPath(url: url), method: method)
    }

    /// The route that answers `method` on `path`, if one is registered.
    public func match(path: RequestPath, method: HTTPMethod) -> Match? {
        guard let found = table.withLock({ $0.match(path, method: method) }) else { return nil }
        return Match(route: found.entry.value, parameters: found.parameters)
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
}
