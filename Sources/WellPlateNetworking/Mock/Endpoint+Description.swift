import Foundation
import WellPlateCore

extension Endpoint {
    /// Parses `description` (`GET /api/users/{id}`): a method, one space, the pattern.
    public init?(description: String) {
        let parts = description.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let method = HTTPMethod(rawValue: String(parts[0])), parts[1].hasPrefix("/") else { return nil }
        self.init(method: method, pattern: String(parts[1]))
    }
}
