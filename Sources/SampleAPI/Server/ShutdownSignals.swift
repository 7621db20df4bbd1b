import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns SIGINT and SIGTERM into a graceful shutdown of the server.
///
/// The handler is in place when `init` returns, so a signal that comes at any moment after it,
/// even before the server exists, is honoured. It used to be a Dispatch signal source behind
/// `SIG_IGN`, which is not: Dispatch installs its own handler later, on its manager thread, and a
/// signal that came in between was ignored. A SIGTERM sent as soon as "listening on" was printed
/// was lost 1 time in 40 on an idle machine, and more often on a loaded one, where the sample
/// API then kept serving (the intermittent shutdown test). So the handler is ours, installed with
/// `sigaction`, and only writes the signal's number to a pipe (`write` is async-signal-safe);
/// a thread of its own reads the pipe and begins the shutdown.
final class ShutdownSignals {
    private let request = ShutdownRequest()

    init() {
        let pipe = SignalPipe.shared
        let request = self.request
        Thread.detachNewThread {
            // Blocking reads, on a thread of their own: never on the cooperative pool.
            while SignalPipe.readSignal(from: pipe.readEnd) != nil { request.signalReceived() }
        }
        for number in [SIGINT, SIGTERM] { SignalPipe.install(for: number) }
    }

    /// Routes later signals to `server`, and shuts it down at once if one already arrived.
    func attach(_ server: SampleAPIServer) {
        request.attach(server)
    }
}

/// The pipe between the signal handler and the thread that acts on signals.
private struct SignalPipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    /// One per process: a C signal handler captures nothing, so it finds the pipe in a global.
    /// Made before any handler is installed, so the handler never runs its initializer.
    static let shared: SignalPipe = {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "sample-api: cannot make the signal pipe: \(String(cString: strerror(errno)))")
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // A burst of signals must never block the handler: past a full pipe, one more is moot.
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        return SignalPipe(readEnd: ends[0], writeEnd: ends[1])
    }()

    static func install(for number: Int32) {
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

    /// Blocks until a signal's number arrives; nil when the pipe is closed or fails.
    static func readSignal(from descriptor: Int32) -> Int32? {
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count == 1 { return Int32(byte) }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }
}

/// The signal handler: async-signal-safe calls only, and `errno` left as it was found.
private func forwardSignal(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(SignalPipe.shared.writeEnd, &byte, 1)
    errno = saved
}

/// Whether a shutdown was asked for, and the server to tell; shared with the signal thread.
private final class ShutdownRequest: Sendable {
    private struct State {
        var server: SampleAPIServer?
        var isRequested = false
    }

    private let state = Mutex(State())

    func signalReceived() {
        let server = state.withLock { state -> SampleAPIServer? in
            state.isRequested = true
            return state.server
        }
        server?.beginShutdown()
    }

    func attach(_ server: SampleAPIServer) {
        let requested = state.withLock { state in
            state.server = server
            return state.isRequested
        }
        if requested { server.beginShutdown() }
    }
}
