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

    public init(file: String? = nil, location: String? = nil, problem: String) {
        self.file = file
        self.location = location
        self.problem = problem
    }

    public var description: String {
        [file, location, problem].compactMap { $0 }.joined(separator: ": ")
    }

    public var errorDescription: String? { description }
}
