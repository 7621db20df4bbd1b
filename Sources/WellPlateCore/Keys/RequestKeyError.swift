import Foundation

/// Key text that cannot be parsed back into a `RequestKey`.
public struct RequestKeyError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The text as given. Keys are made from redacted requests, so it holds no secrets.
    public let key: String
    public let problem: String

    public init(key: String, problem: String) {
        self.key = key
        self.problem = problem
    }

    public var description: String {
        "invalid request key \"\(key)\": \(problem); expected METHOD /path[?query][ body:sha256:<16 hex digits>], see docs/matching.md"
    }

    public var errorDescription: String? { description }
}
