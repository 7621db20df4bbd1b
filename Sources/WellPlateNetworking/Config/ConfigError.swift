import Foundation
import WellPlateCore

/// A configuration value that cannot be used: names where it came from, the key, and what is accepted.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The file path, or `environment variable NAME`.
    public let source: String
    /// The offending key, when the problem is with one value.
    public let key: String?
    /// What is wrong with the value.
    public let problem: String
    /// The values that would be accepted, when that helps.
    public let accepted: String?

    /// An error about `key` in `source`.
    public init(source: String, key: String?, problem: String, accepted: String? = nil) {
        self.source = source
        self.key = key
        self.problem = problem
        self.accepted = accepted
    }

    /// `source: "key": problem (accepted: ...)`, leaving out the parts that are `nil`.
    public var description: String {
        var text = source
        if let key { text += ": \"\(key)\"" }
        text += ": \(problem)"
        if let accepted { text += " (accepted: \(accepted))" }
        return text
    }

    /// The same text as `description`.
    public var errorDescription: String? { description }
}
