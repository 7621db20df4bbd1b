import Foundation
import WellPlateCore

/// A fixture that cannot be served: names the fixture, the file (or every place searched), and,
/// for a bad file, where in it and why.
public struct MockDataError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// Why the fixture could not be served: a struct over a code, as async-http-client's
    /// `HTTPClientError` is, so that adding a kind does not break an app's `switch`. Compare with
    /// `==` or switch with a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kinds themselves; `package` so that the package's own code (the message below)
        /// switches over it exhaustively, while apps see only the static members.
        package enum Code: Sendable, Hashable, CaseIterable {
            case notFound, unreadable, invalidJSON, typeMismatch, invalidName
        }

        /// The code behind the kind.
        package let code: Code

        /// The kind with `code`.
        package init(_ code: Code) {
            self.code = code
        }

        /// No file for the fixture in any of the places searched.
        public static let notFound = Kind(.notFound)
        /// The file exists but could not be read.
        public static let unreadable = Kind(.unreadable)
        /// The file is not valid JSON; `line` and `column` say where.
        public static let invalidJSON = Kind(.invalidJSON)
        /// The file is JSON but not the shape of the requested type; `jsonPath` says where.
        public static let typeMismatch = Kind(.typeMismatch)
        /// The name cannot be a fixture file name.
        public static let invalidName = Kind(.invalidName)

        /// The kind's name, as written in code; spelled out, since an app may build without the
        /// reflection metadata that `String(describing:)` of the code would need.
        public var description: String {
            switch code {
            case .notFound: "notFound"
            case .unreadable: "unreadable"
            case .invalidJSON: "invalidJSON"
            case .typeMismatch: "typeMismatch"
            case .invalidName: "invalidName"
            }
        }
    }

    /// Why the fixture could not be served.
    public var kind: Kind
    /// The fixture's name.
    public var fixture: String
    /// The file read, for every kind but `notFound` and `invalidName`.
    public var file: String?
    /// Every place looked in, for `notFound`.
    public var searched: [String]
    /// The routes registered when a fixture was not found, so the message shows what is mapped.
    public var registeredRoutes: [MockRoute]
    /// The request being answered (`GET /api/health`), when a `MockAPIClient` was asked.
    public var request: String?
    /// `$.items[2].price` for a type mismatch.
    public var jsonPath: String?
    /// The 1-based line of a JSON syntax error.
    public var line: Int?
    /// The 1-based column of a JSON syntax error, counted in Unicode scalars.
    public var column: Int?
    /// The reason in the parser's or decoder's words.
    public var reason: String?
    /// The decoder's finding, for a type mismatch.
    public var decodingError: ResponseDecodingError?

    /// An error about `fixture`; fill in what is known for its kind.
    public init(
        kind: Kind, fixture: String, file: String? = nil, searched: [String] = [], registeredRoutes: [MockRoute] = [],
        request: String? = nil, jsonPath: String? = nil, line: Int? = nil, column: Int? = nil, reason: String? = nil,
        decodingError: ResponseDecodingError? = nil
    ) {
        self.kind = kind
        self.fixture = fixture
        self.file = file
        self.searched = searched
        self.registeredRoutes = registeredRoutes
        self.request = request
        self.jsonPath = jsonPath
        self.line = line
        self.column = column
        self.reason = reason
        self.decodingError = decodingError
    }

    /// How many registered routes a message lists before summarising the rest.
    static let listedRouteLimit = 20

    /// What went wrong with the fixture and how to fix it, starting with the request when known.
    public var description: String {
        let prefix = request.map { "\($0): " } ?? ""
        let name = PathPattern.quoted(fixture)
        let filePath = file ?? "?"
        switch kind.code {
        case .notFound:
            let places =
                searched.isEmpty
                ? "no fixtures directory or bundle is configured (set fixturesDirectory)"
                : "looked for " + searched.joined(separator: " and ")
            return
                "\(prefix)mock fixture \(name) not found: \(places); create the file, or map the request to an existing fixture in \(MockResponseRegistry.fileName) (\(routeSummary))"
        case .unreadable:
            return "\(prefix)mock fixture file \(filePath) cannot be read (\(reason ?? "unknown error")); check its permissions"
        case .invalidJSON:
            let position = line.map { "line \($0), column \(column ?? 0)" } ?? "an unknown position"
            return "\(prefix)mock fixture file \(filePath) is not valid JSON at \(position): \(reason ?? "syntax error"); fix the file"
        case .typeMismatch:
            let typeName = decodingError?.typeName ?? "the requested type"
            return
                "\(prefix)mock fixture file \(filePath) does not match \(typeName) at \(jsonPath ?? "$"): \(reason ?? "wrong shape"); fix the file or the model"
        case .invalidName:
            return "\(prefix)\(name) is not a usable fixture name: \(reason ?? "invalid"); use a relative name without .json, such as users_list"
        }
    }

    /// The same text as `description`.
    public var errorDescription: String? { description }

    private var routeSummary: String {
        guard !registeredRoutes.isEmpty else { return "no routes are registered" }
        let listed = registeredRoutes.prefix(Self.listedRouteLimit).map(\.description).joined(separator: "; ")
        let rest = registeredRoutes.count - Self.listedRouteLimit
        return "registered: " + listed + (rest > 0 ? "; and \(rest) more" : "")
    }
}
