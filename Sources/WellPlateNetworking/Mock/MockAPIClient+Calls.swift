import Foundation
import WellPlateCore

extension MockAPIClient {
    /// Every call received, oldest first.
    public var calls: [MockCall] {
        state.withLock { $0.calls }
    }

    /// Calls whose path matches `path` (an exact path or a pattern such as `/api/users/{id}`),
    /// optionally only those with `method`.
    /// - Throws: `MockRegistryError` for a malformed pattern.
    public func calls(to path: String, method: HTTPMethod? = nil) throws(MockRegistryError) -> [MockCall] {
        let pattern = try PathPattern(path)
        return calls.filter { call in
            (method == nil || call.method == method) && pattern.match(RequestPath(url: call.url)) != nil
        }
    }

    /// How many calls matched `path` (and `method`, when given).
    public func callCount(method: HTTPMethod? = nil, path: String) throws(MockRegistryError) -> Int {
        try calls(to: path, method: method).count
    }

    /// Forgets recorded calls only.
    public func clearCalls() {
        state.withLock { $0.calls.removeAll() }
    }
}
