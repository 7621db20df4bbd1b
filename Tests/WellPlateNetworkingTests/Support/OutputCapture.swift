import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Everything a child wrote to one of its pipes, read on a dedicated thread until end of file.
///
/// Draining continuously means a child that writes a lot never blocks on a full pipe, whether or
/// not the test reads the output.
final class OutputCapture: Sendable {
    private let bytes = Mutex<[UInt8]>([])
    /// The first line (without the newline), or `nil` when the stream ended before one.
    let firstLine = OneShot<String?>()
    /// Set when the child closed its end of the pipe (usually by exiting).
    let finished = OneShot<Void>()

    /// Starts draining `descriptor`; the capture closes it at end of file.
    init(draining descriptor: Int32, name: String) {
        let thread = Thread { [self] in drain(descriptor) }
        thread.name = "drain \(name)"
        thread.start()
    }

    var text: String {
        String(decoding: bytes.withLock { $0 }, as: UTF8.self)
    }

    private func drain(_ descriptor: Int32) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                append(chunk[..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        close(descriptor)
        firstLine.fulfil(nil)
        finished.fulfil(())
    }

    private func append(_ chunk: ArraySlice<UInt8>) {
        let line = bytes.withLock { bytes -> String? in
            let hadLine = bytes.contains(UInt8(ascii: "\n"))
            bytes.append(contentsOf: chunk)
            guard !hadLine, let end = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
        if let line { firstLine.fulfil(line) }
    }
}
