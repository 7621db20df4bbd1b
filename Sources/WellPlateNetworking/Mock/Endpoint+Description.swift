import Foundation
import WellPlateCore

extension Endpoint {
    /// Parses `description` (`GET /api/users/{id}`): a method, one space, the pattern, and for a
    /// GraphQL operation one more space and the operation (`POST /graphql query GetUser`).
    public init?(description: String) {
        let parts = description.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let method = HTTPMethod(rawValue: String(parts[0])), parts[1].hasPrefix("/") else { return nil }
        let operation = parts.count == 3 ? String(parts[2]) : nil
        guard operation?.isEmpty != true else { return nil }
        self.init(method: method, pattern: String(parts[1]), operation: operation)
    }
}
