import Foundation
import Testing
import WellPlateCore
import WellPlateNetworking

/// `MockDataError.Kind` is a struct over a code, so that a kind added later does not break an
/// app's `switch`; these tests pin its names, equality and matching, and each kind's message.
@Suite("MockDataError")
struct MockDataErrorTests {
    /// Every kind, in the order of the code, as an app names them.
    static let kinds: [MockDataError.Kind] = [.notFound, .unreadable, .invalidJSON, .typeMismatch, .invalidName]

    @Test func eachKindIsNamedAsInCodeAndDistinct() {
        #expect(Self.kinds.map(\.description) == ["notFound", "unreadable", "invalidJSON", "typeMismatch", "invalidName"])
        #expect(Set(Self.kinds).count == Self.kinds.count)
        #expect(Self.kinds.map(\.code) == MockDataError.Kind.Code.allCases)
        #expect(Self.kinds[2] == .invalidJSON)
        #expect(Self.kinds[2] != .typeMismatch)
    }

    @Test func eachKindKeepsItsMessage() throws {
        let routes = try (0..<22).map { try MockRoute(method: .get, path: "/api/r\($0)", fixture: "r\($0)") }
        let cases: [(MockDataError, String)] = [
            (
                MockDataError(kind: .notFound, fixture: "users_list", searched: ["/f/users_list.json", "bundle Fixtures/users_list.json"]),
                #"mock fixture "users_list" not found: looked for /f/users_list.json and bundle Fixtures/users_list.json; create the file, or map the request to an existing fixture in registry.json (no routes are registered)"#
            ),
            (
                MockDataError(kind: .notFound, fixture: "users_list", registeredRoutes: Array(routes.prefix(2)), request: "GET /api/users"),
                #"GET /api/users: mock fixture "users_list" not found: no fixtures directory or bundle is configured (set fixturesDirectory); create the file, or map the request to an existing fixture in registry.json (registered: GET /api/r0 -> r0; GET /api/r1 -> r1)"#
            ),
            (
                MockDataError(kind: .notFound, fixture: "x", searched: ["/f/x.json"], registeredRoutes: routes),
                #"mock fixture "x" not found: looked for /f/x.json; create the file, or map the request to an existing fixture in registry.json (registered: "#
                    + routes.prefix(20).map(\.description).joined(separator: "; ") + "; and 2 more)"
            ),
            (
                MockDataError(kind: .unreadable, fixture: "health", file: "/f/health.json", reason: "Permission denied"),
                "mock fixture file /f/health.json cannot be read (Permission denied); check its permissions"
            ),
            (
                MockDataError(kind: .unreadable, fixture: "health"),
                "mock fixture file ? cannot be read (unknown error); check its permissions"
            ),
            (
                MockDataError(kind: .invalidJSON, fixture: "broken", file: "/f/broken.json", line: 3, column: 17, reason: "unexpected ','"),
                "mock fixture file /f/broken.json is not valid JSON at line 3, column 17: unexpected ','; fix the file"
            ),
            (
                MockDataError(kind: .invalidJSON, fixture: "broken", file: "/f/broken.json"),
                "mock fixture file /f/broken.json is not valid JSON at an unknown position: syntax error; fix the file"
            ),
            (
                MockDataError(
                    kind: .typeMismatch, fixture: "day", file: "/f/day.json", request: "GET /api/day", jsonPath: "$.meals[1].calories",
                    reason: "expected Int",
                    decodingError: ResponseDecodingError(typeName: "App.Day", path: "$.meals[1].calories", reason: "expected Int")),
                "GET /api/day: mock fixture file /f/day.json does not match App.Day at $.meals[1].calories: expected Int; fix the file or the model"
            ),
            (
                MockDataError(kind: .typeMismatch, fixture: "day", file: "/f/day.json"),
                "mock fixture file /f/day.json does not match the requested type at $: wrong shape; fix the file or the model"
            ),
            (
                MockDataError(kind: .invalidName, fixture: "user.json", reason: "it ends in .json"),
                #""user.json" is not a usable fixture name: it ends in .json; use a relative name without .json, such as users_list"#
            ),
        ]
        for (error, message) in cases {
            #expect(error.description == message)
            #expect(error.errorDescription == message)
            #expect(error.localizedDescription == message)
        }
    }

    /// What an app writes: a `switch` over the kind with a `default`, matched through `==`.
    static func fix(for error: MockDataError) -> String {
        switch error.kind {
        case .notFound: "add \(error.fixture).json"
        case .invalidJSON, .typeMismatch: "edit \(error.file ?? "?")"
        default: "rename"
        }
    }

    @Test func aSwitchWithADefaultMatchesEachKind() {
        let fixes = Self.kinds.map { Self.fix(for: MockDataError(kind: $0, fixture: "user", file: "/f/user.json")) }
        #expect(fixes == ["add user.json", "rename", "edit /f/user.json", "edit /f/user.json", "rename"])
    }
}
