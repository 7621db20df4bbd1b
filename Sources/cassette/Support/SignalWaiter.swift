import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into an awaitable event, so the proxy can shut down gracefully
/// instead of dying with requests in flight.
///
/// Every signal that comes once `init` has returned is seen. A Dispatch signal source behind
/// `SIG_IGN` (this type's first form) does not promise that: Dispatch installs its own handler
/// later, on its manager thread, and a signal in between was ignored. A SIGTERM sent as soon as
/// `listening on` was printed left `cassette replay` running 1 time in 30 on an idle machine. So
/// the handler is installed with `sigaction` before `init` returns; it only writes the signal's
/// number to a pipe (`write` is async-signal-safe), and one thread of its own reads the pipe and
/// hands each signal to every waiter. (`sample-api`'s `ShutdownSignals` does the same.)
final class SignalWaiter: Sendable {
    private let stream: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    private let registration: Int

    init(signals: [Int32] = [SIGINT, SIGTERM]) {
        (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        registration = ProcessSignals.shared.register(continuation, for: signals)
    }

    /// Returns the next signal received (or nil once `cancel()` was called).
    func next() async -> Int32? {
        for await number in stream { return number }
        return nil
    }

    /// Makes a pending `next()` return nil; signals are no longer delivered to this waiter.
    func cancel() {
        ProcessSignals.shared.unregister(registration)
        continuation.finish()
    }

    deinit {
        ProcessSignals.shared.unregister(registration)
    }
}

/// The process's handlers of the signals waited for, the pipe they write to and the thread that
/// reads it. One per process: a C signal handler captures nothing, so it finds the pipe in a global.
private final class ProcessSignals: Sendable {
    static let shared = ProcessSignals()

    private struct State {
        var waiters: [Int: (signals: Set<Int32>, continuation: AsyncStream<Int32>.Continuation)] = [:]
        var nextID = 0
        var installed: Set<Int32> = []
    }

    private let state = Mutex(State())
    let writeEnd: Int32

    private init() {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "cassette: cannot make the signal pipe: \(String(cString: strerror(errno)))")
        // Close-on-exec: `cassette run`'s command must not inherit it.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // A burst of signals must never block the handler: past a full pipe, one more is moot.
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        writeEnd = ends[1]
        let readEnd = ends[0]
        let thread = Thread { [self] in
            // Blocking reads, on a thread of their own: never on the cooperative pool.
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                deliver(Int32(byte))
            }
        }
        thread.name = "cassette signals"
        thread.start()
    }

    /// Delivers `signals` to `continuation` from now on; returns its registration.
    func register(_ continuation: AsyncStream<Int32>.Continuation, for signals: [Int32]) -> Int {
        let (id, toInstall) = state.withLock { state in
            state.nextID += 1
            state.waiters[state.nextID] = (Set(signals), continuation)
            let toInstall = Set(signals).subtracting(state.installed)
            state.installed.formUnion(toInstall)
            return (state.nextID, toInstall)
        }
        for number in toInstall { Self.install(for: number) }
        return id
    }

    private func deliver(_ number: Int32) {
        let continuations = state.withLock { $0.waiters.values.filter { $0.signals.contains(number) }.map(\.continuation) }
        for continuation in continuations { continuation.yield(number) }
    }

    func unregister(_ id: Int) {
        _ = state.withLock { $0.waiters.removeValue(forKey: id) }
    }

    /// Installed once per signal and kept: with no waiter left, a signal is ignored, as it was
    /// behind the Dispatch sources' `SIG_IGN`.
    private static func install(for number: Int32) {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = forwardSignal
        #else
        action.__sigaction_u.__sa_handler = forwardSignal
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(number, &action, nil)
    }
}

/// The signal handler: async-signal-safe calls only, and `errno` left as it was found. The pipe
/// exists before any handler is installed, so this never runs `shared`'s initializer.
private func forwardSignal(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(ProcessSignals.shared.writeEnd, &byte, 1)
    errno = saved
}
