import Foundation
import WellPlateCore

/// A mock route or `registry.json` that cannot be used: names the file, where in it (a JSON path
/// such as `$.routes[2].path`, or a line and column for a syntax error) and what is wrong.
public struct MockRegistryError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The registry file, when the route came from one.
    public var file: String?
    /// `$.routes[2].path`, or `line 3, column 7`.
    public var location: String?
    /// What is wrong and what to do about it.
    public var problem: String

    /// An error saying what is wrong, and where when known.
    public init(file: String? = nil, location: String? = nil, problem: String) {
        self.file = file
        self.location = location
        self.problem = problem
    }

    /// The file, location and problem that are known, joined with `: `.
    public var description: String {
        [file, location, problem].compactMap { $0 }.joined(separator: ": ")
    }

    /// The same text as `description`.
    public var errorDescription: String? { description }
}
