import Synchronization
import WellPlateCore
import WellPlateNetworking

/// A clock whose `sleep` returns at once, moving its time forward and recording how long each
/// sleep asked for: a test sees exactly the waits the code chose, without spending them.
package final class TestClock: Clock, Sendable {
    package init() {
    }

    package struct Instant: InstantProtocol {
        package init(offset: Duration) {
            self.offset = offset
        }

        var offset: Duration

        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleeps: [Duration] = []
    }

    private let state = Mutex(State())

    package var now: Instant { state.withLock { $0.now } }
    package var minimumResolution: Duration { .nanoseconds(1) }
    /// Every wait asked for, in order.
    package var sleeps: [Duration] { state.withLock { $0.sleeps } }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(state.now.duration(to: deadline))
            state.now = max(state.now, deadline)
        }
    }
}
