import Synchronization

/// Requests received per `/api/flaky` key, shared by all connections.
final class FlakyCounter: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Counts one more request for `key` and returns the new total.
    func increment(_ key: String) -> Int {
        counts.withLock { counts in
            counts[key, default: 0] += 1
            return counts[key, default: 0]
        }
    }

    func count(_ key: String) -> Int {
        counts.withLock { $0[key, default: 0] }
    }
}
