import Foundation
import WellPlateCore

/// One mapping from a request (method and path pattern) to the fixture that answers it.
public struct MockRoute: Sendable, Hashable, CustomStringConvertible {
    /// The request method the route answers.
    public let method: HTTPMethod
    /// The path pattern the route answers.
    public let pattern: PathPattern
    /// The fixture's name: its file name without `.json`, relative to the fixtures directory.
    public let fixture: String

    /// A route from a parsed pattern; throws `MockRegistryError` when `fixture` is not a usable fixture name.
    public init(method: HTTPMethod, pattern: PathPattern, fixture: String) throws(MockRegistryError) {
        try Self.validate(fixture: fixture)
        self.method = method
        self.pattern = pattern
        self.fixture = fixture
    }

    /// - Throws: `MockRegistryError` for a malformed pattern or fixture name.
    public init(method: HTTPMethod, path: String, fixture: String) throws(MockRegistryError) {
        try self.init(method: method, pattern: PathPattern(path), fixture: fixture)
    }

    /// The pattern as written.
    public var path: String { pattern.text }

    /// `GET /api/users/{id} -> users_id_get`.
    public var description: String { "\(method.rawValue) \(path) -> \(fixture)" }

    /// Sorted by path (code point order), then method: the order of `registry.json`.
    static func fileOrder(_ lhs: MockRoute, _ rhs: MockRoute) -> Bool {
        if lhs.path != rhs.path { return lhs.path.utf8.lexicographicallyPrecedes(rhs.path.utf8) }
        return lhs.method.rawValue < rhs.method.rawValue
    }

    /// Fixture names become file paths, so they must stay inside the fixtures directory.
    static func validate(fixture name: String) throws(MockRegistryError) {
        if let problem = MockDataLoader.problem(withFixtureName: name) {
            throw MockRegistryError(problem: "fixture name \(PathPattern.quoted(name)) \(problem)")
        }
    }
}
