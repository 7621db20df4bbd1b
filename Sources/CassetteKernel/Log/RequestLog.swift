import Dispatch
import Foundation
import Synchronization
import WellPlateCore

/// Writes the proxy's per-request lines without ever blocking an event loop or waking a thread
/// per request: lines go into a buffer under a lock, and a background thread writes the buffers
/// out every few milliseconds in one system call. When the reader of the output stalls and a
/// buffer passes its cap, lines are dropped and counted rather than stalling the server.
///
/// Each event loop has a buffer of its own (`shard`), so connections on different loops never
/// contend for one lock; the background thread is the only other party. Lines carry the time
/// they were logged, and the writer merges the buffers in that order.
package final class RequestLog: Sendable {
    private struct Buffer {
        package var bytes: [UInt8] = []
        /// Per line: when it was logged and where it ends in `bytes`.
        package var lines: [(time: UInt64, end: Int)] = []
        package var dropped = 0
    }

    /// A class per buffer, so each lock lives in an allocation of its own.
    private final class Shard: Sendable {
        package let buffer = Mutex(Buffer())
    }

    private let shards: [Shard]
    /// Serializes writes between the background thread and `flush()`.
    private let writing = Mutex(())
    private let closed = Atomic(false)
    /// Set when the reader of the output went away (EPIPE): lines are dropped from then on, and
    /// the proxy keeps serving.
    private let readerGone = Atomic(false)
    private let descriptor: Int32
    private let maxBufferedBytes: Int

    /// `shards`: one per event loop plus shard 0, for lines logged elsewhere.
    package init(descriptor: Int32 = STDOUT_FILENO, shards: Int = 1, maxBufferedBytes: Int = 4 * 1024 * 1024, interval: Duration = .milliseconds(20)) {
        self.descriptor = descriptor
        self.shards = (0..<max(1, shards)).map { _ in Shard() }
        self.maxBufferedBytes = maxBufferedBytes
        let microseconds = UInt32(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        let thread = Thread { [self] in
            // Named from inside, at most 15 bytes (see `CurlMultiLoop`).
            Thread.current.name = "request-log"
            while !closed.load(ordering: .acquiring) {
                usleep(microseconds)
                flush()
            }
        }
        thread.start()
    }

    /// Appends one line written straight into the buffer of `shard`, without building a `String`
    /// first.
    package func log(shard: Int = 0, _ write: (inout [UInt8]) -> Void) {
        let time = DispatchTime.now().uptimeNanoseconds
        shards[shards.indices.contains(shard) ? shard : 0].buffer.withLock { buffer in
            guard buffer.bytes.count < maxBufferedBytes else {
                buffer.dropped += 1
                return
            }
            write(&buffer.bytes)
            buffer.bytes.append(UInt8(ascii: "\n"))
            buffer.lines.append((time, buffer.bytes.count))
        }
    }

    /// Writes out everything logged so far; call before printing anything else to the same stream.
    package func flush() {
        writing.withLock { _ in drain() }
    }

    /// Stops the background thread after a last flush.
    package func close() {
        closed.store(true, ordering: .releasing)
        flush()
    }

    private func drain() {
        let taken = shards.map { shard in
            shard.buffer.withLock { buffer -> Buffer in
                let taken = buffer
                buffer.bytes.removeAll(keepingCapacity: true)
                buffer.lines.removeAll(keepingCapacity: true)
                buffer.dropped = 0
                return taken
            }
        }
        let dropped = taken.reduce(0) { $0 + $1.dropped }
        let filled = taken.filter { !$0.lines.isEmpty }
        guard !filled.isEmpty || dropped > 0, !readerGone.load(ordering: .relaxed) else { return }
        var output = filled.count == 1 ? filled[0].bytes : Self.merged(filled)
        if dropped > 0 {
            output.append(contentsOf: "(\(dropped) request lines dropped: the output was not being read)\n".utf8)
        }
        if !Self.writeAll(output, to: descriptor) { readerGone.store(true, ordering: .relaxed) }
    }

    /// The lines of several buffers in the order they were logged.
    private static func merged(_ buffers: [Buffer]) -> [UInt8] {
        var lines: [(time: UInt64, buffer: Int, start: Int, end: Int)] = []
        lines.reserveCapacity(buffers.reduce(0) { $0 + $1.lines.count })
        for (number, buffer) in buffers.enumerated() {
            var start = 0
            for line in buffer.lines {
                lines.append((line.time, number, start, line.end))
                start = line.end
            }
        }
        lines.sort { ($0.time, $0.buffer, $0.start) < ($1.time, $1.buffer, $1.start) }
        var output: [UInt8] = []
        output.reserveCapacity(buffers.reduce(0) { $0 + $1.bytes.count })
        for line in lines {
            output.append(contentsOf: buffers[line.buffer].bytes[line.start..<line.end])
        }
        return output
    }

    /// False once the reader is gone (EPIPE; SIGPIPE is ignored, see `StandardStream`).
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno != EPIPE
                }
                offset += written
            }
            return true
        }
    }
}
