import Synchronization
import WellPlateCore
import WellPlateNetworking

/// A value that is set once and can be awaited by any number of tasks.
///
/// Waiting is cancellation-aware: a cancelled waiter throws `CancellationError` at once, which is
/// what lets `withTimeout` give up on it.
package final class OneShot<Value: Sendable>: Sendable {
    package init() {
    }

    private struct State {
        var value: Value?
        var waiters: [Int: CheckedContinuation<Value, any Error>] = [:]
        var nextWaiterID = 0
    }

    private let state = Mutex(State())

    /// The value, if it was set already.
    package var value: Value? {
        state.withLock { $0.value }
    }

    /// Sets the value and wakes every waiter; later calls are ignored.
    package func fulfil(_ value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard state.value == nil else { return [] }
            state.value = value
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    package func wait() async throws -> Value {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Checked under the lock so that a cancellation racing with this registration
                // either sees the stored waiter or is seen here.
                let immediate = state.withLock { state -> Result<Value, any Error>? in
                    if let value = state.value { return .success(value) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

package struct TimeoutError: Error, CustomStringConvertible {
    package init(description: String) {
        self.description = description
    }

    package let description: String
}

/// Runs `operation`, throwing `TimeoutError` (and cancelling it) if it takes longer than `timeout`.
package func withTimeout<Value: Sendable>(
    _ timeout: Duration,
    _ what: String,
    operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TimeoutError(description: "timed out after \(timeout) waiting for \(what)")
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}
