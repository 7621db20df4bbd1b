import Dispatch
import Foundation
import Synchronization

/// Writes the proxy's per-request lines without ever blocking an event loop or waking a thread
/// per request: lines go into a buffer under a lock, and a background thread writes the buffer
/// out every few milliseconds in one system call. When the reader of the output stalls and
/// the buffer passes its cap, lines are dropped and counted rather than stalling the server.
final class RequestLog: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var dropped = 0
    }

    private let state = Mutex(State())
    /// Serializes writes between the background thread and `flush()`.
    private let writing = Mutex(())
    private let closed = Atomic(false)
    private let descriptor: Int32
    private let maxBufferedBytes: Int

    init(descriptor: Int32 = STDOUT_FILENO, maxBufferedBytes: Int = 4 * 1024 * 1024, interval: Duration = .milliseconds(20)) {
        self.descriptor = descriptor
        self.maxBufferedBytes = maxBufferedBytes
        let microseconds = UInt32(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        let thread = Thread { [self] in
            while !closed.load(ordering: .acquiring) {
                usleep(microseconds)
                flush()
            }
        }
        thread.name = "cassette-request-log"
        thread.start()
    }

    /// Appends one line written straight into the buffer, without building a `String` first.
    func log(_ write: (inout [UInt8]) -> Void) {
        state.withLock { state in
            guard state.buffer.count < maxBufferedBytes else {
                state.dropped += 1
                return
            }
            write(&state.buffer)
            state.buffer.append(UInt8(ascii: "\n"))
        }
    }

    /// Writes out everything logged so far; call before printing anything else to the same stream.
    func flush() {
        writing.withLock { _ in drain() }
    }

    /// Stops the background thread after a last flush.
    func close() {
        closed.store(true, ordering: .releasing)
        flush()
    }

    private func drain() {
        let (bytes, dropped) = state.withLock { state -> ([UInt8], Int) in
            guard !state.buffer.isEmpty || state.dropped > 0 else { return ([], 0) }
            let taken = state.buffer
            let dropped = state.dropped
            state.buffer.removeAll(keepingCapacity: true)
            state.dropped = 0
            return (taken, dropped)
        }
        guard !bytes.isEmpty || dropped > 0 else { return }
        var output = bytes
        if dropped > 0 {
            output.append(contentsOf: "(\(dropped) request lines dropped: the output was not being read)\n".utf8)
        }
        Self.writeAll(output, to: descriptor)
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
