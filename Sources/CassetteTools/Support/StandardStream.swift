import Foundation
import Synchronization

/// Standard output or error, written with write(2). Foundation's `FileHandle.write` turns EPIPE
/// into a fatal error, so `cassette replay | head -1` crashed once `head` had gone; here a reader
/// that went away means "stop printing", and the program keeps working and exits normally.
/// SIGPIPE must be ignored (`ignoreBrokenPipes()`), or the first such write kills the process.
package enum StandardStream: Sendable {
    case output
    case error

    /// Set once a stream's reader is gone; nothing more is written to it.
    private static let outputClosed = Atomic(false)
    private static let errorClosed = Atomic(false)

    package var descriptor: Int32 {
        switch self {
        case .output: STDOUT_FILENO
        case .error: STDERR_FILENO
        }
    }

    private var isClosed: Bool {
        switch self {
        case .output: Self.outputClosed.load(ordering: .relaxed)
        case .error: Self.errorClosed.load(ordering: .relaxed)
        }
    }

    private func markClosed() {
        switch self {
        case .output: Self.outputClosed.store(true, ordering: .relaxed)
        case .error: Self.errorClosed.store(true, ordering: .relaxed)
        }
    }

    /// Makes a write to a pipe nobody reads fail with EPIPE instead of killing the process.
    /// Children started through swift-subprocess get the default disposition back (`ChildCommand`).
    package static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    package func write(_ text: String) {
        write(Array(text.utf8))
    }

    package func write(_ data: Data) {
        write([UInt8](data))
    }

    /// Writes all of `bytes`, unless the reader is gone (EPIPE) or the stream fails otherwise:
    /// output nobody can read is dropped, never a reason to stop.
    package func write(_ bytes: [UInt8]) {
        guard !isClosed else { return }
        let failed = bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno == EPIPE
                }
                offset += written
            }
            return false
        }
        if failed { markClosed() }
    }
}
