import Dispatch
import Foundation
import Synchronization

/// Writes the proxy's per-request lines without ever blocking an event loop: lines go into a
/// buffer under a lock and one background queue writes the buffer out in large chunks. When the
/// reader of the output stalls and the buffer passes its cap, lines are dropped and counted
/// rather than stalling the server.
final class RequestLog: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var flushScheduled = false
        var dropped = 0
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "cassette.request-log")
    private let descriptor: Int32
    private let maxBufferedBytes: Int

    init(descriptor: Int32 = STDOUT_FILENO, maxBufferedBytes: Int = 4 * 1024 * 1024) {
        self.descriptor = descriptor
        self.maxBufferedBytes = maxBufferedBytes
    }

    func log(_ line: String) {
        let schedule = state.withLock { state -> Bool in
            guard state.buffer.count < maxBufferedBytes else {
                state.dropped += 1
                return false
            }
            state.buffer.append(contentsOf: line.utf8)
            state.buffer.append(UInt8(ascii: "\n"))
            guard !state.flushScheduled else { return false }
            state.flushScheduled = true
            return true
        }
        if schedule {
            queue.async { self.drain() }
        }
    }

    /// Writes out everything logged so far; call before printing anything else to the same stream.
    func flush() {
        queue.sync { drain() }
    }

    private func drain() {
        let (bytes, dropped) = state.withLock { state -> ([UInt8], Int) in
            let taken = state.buffer
            let dropped = state.dropped
            state.buffer.removeAll(keepingCapacity: true)
            state.dropped = 0
            state.flushScheduled = false
            return (taken, dropped)
        }
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
