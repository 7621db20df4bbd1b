import Synchronization

/// What the auth endpoints were asked, shared by all connections, so tests can count on the
/// server's side how many requests and refreshes a client really made.
final class AuthCounter: Sendable {
    struct Counts: Sendable {
        var profileRequests = 0
        var rejected = 0
        var refreshes = 0
    }

    private let counts = Mutex(Counts())

    func record(_ change: (inout Counts) -> Void) {
        counts.withLock { change(&$0) }
    }

    var current: Counts {
        counts.withLock { $0 }
    }
}
