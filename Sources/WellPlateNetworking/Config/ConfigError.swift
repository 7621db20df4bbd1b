import Foundation
import WellPlateCore

/// A configuration value that cannot be used: names where it came from, the key, and what is accepted.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The file path, or `environment variable NAME`.
    public let source: String
    public let key: String?
    public let problem: String
    public let accepted: String?

    public init(source: String, key: String?, problem: String, accepted: String? = nil) {
        self.source = source
        self.key = key
        self.problem = problem
        self.accepted = accepted
    }

    public var description: String {
        var text = source
        if let key { text += ": \"\(key)\"" }
        text += ": \(problem)"
        if let accepted { text += " (accepted: \(accepted))" }
        return text
    }

    public var errorDescription: String? { description }
}
