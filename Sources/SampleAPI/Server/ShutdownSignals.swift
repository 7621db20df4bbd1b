import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns SIGINT and SIGTERM into a graceful shutdown of the server.
///
/// Installed before the server binds, so a signal that arrives early is remembered and honoured
/// as soon as the server exists instead of killing the process with the default action.
final class ShutdownSignals {
    private let request = ShutdownRequest()
    // Kept only so that the sources stay alive; Dispatch calls their handlers on its own queue.
    private let sources: [any DispatchSourceSignal]

    init() {
        let request = self.request
        sources = [SIGINT, SIGTERM].map { signalNumber in
            // The default action would terminate the process before Dispatch sees the signal.
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { request.signalReceived() }
            source.resume()
            return source
        }
    }

    /// Routes later signals to `server`, and shuts it down at once if one already arrived.
    func attach(_ server: SampleAPIServer) {
        request.attach(server)
    }
}

/// Whether a shutdown was asked for, and the server to tell; shared with the signal handlers.
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
