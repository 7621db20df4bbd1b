import Foundation

/// Key text that cannot be parsed back into a `RequestKey`.
package struct RequestKeyError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The text as given. Keys are made from redacted requests, so it holds no secrets.
    package let key: String
    package let problem: String

    package init(key: String, problem: String) {
        self.key = key
        self.problem = problem
    }

    package var description: String {
        "invalid request key \"\(key)\": \(problem); expected METHOD /path[?query][ body:sha256:<16 hex digits>], see docs/matching.md"
    }

    package var errorDescription: String? { description }
}
