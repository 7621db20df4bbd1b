#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered writes to stdout and stderr.
///
/// `print` goes through stdio's buffer, which is block-buffered when stdout is a pipe: a parent
/// waiting for the "listening on" line would never see it. A direct `write(2)` reaches the pipe at once.
enum StandardStreams {
    static func writeLine(_ line: String, toStandardError: Bool = false) {
        let descriptor = toStandardError ? STDERR_FILENO : STDOUT_FILENO
        var bytes = Array((line + "\n").utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written > 0 {
                bytes = bytes.dropFirst(written)
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                // The reader went away; there is nobody left to tell.
                return
            }
        }
    }

    static func error(_ line: String) {
        writeLine(line, toStandardError: true)
    }
}
