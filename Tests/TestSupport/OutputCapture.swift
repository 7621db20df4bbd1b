import Foundation
import Synchronization
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// Everything a child wrote to one of its pipes, read on a dedicated thread until end of file.
///
/// Draining continuously means a child that writes a lot never blocks on a full pipe, whether or
/// not the test reads the output.
package final class OutputCapture: Sendable {
    private struct Watcher {
        let predicate: @Sendable (String) -> Bool
        let outcome: OneShot<Bool>
    }

    private struct State {
        var bytes: [UInt8] = []
        var ended = false
        var watchers: [Watcher] = []
    }

    private let state = Mutex(State())
    /// The first line (without the newline), or `nil` when the stream ended before one.
    package let firstLine = OneShot<String?>()
    /// Set when the child closed its end of the pipe (usually by exiting).
    package let finished = OneShot<Void>()

    /// Starts draining `descriptor`; the capture closes it at end of file. A pseudo-terminal's
    /// master works too: its read fails with EIO once the child is gone, which ends the capture.
    package init(draining descriptor: Int32, name: String) {
        let thread = Thread { [self] in drain(descriptor) }
        thread.name = "drain \(name)"
        thread.start()
    }

    package var text: String {
        String(decoding: state.withLock { $0.bytes }, as: UTF8.self)
    }

    /// Waits until the text so far satisfies `predicate`: true when it did, false when the stream
    /// ended without it. Lets a test await a line the child writes after answering a request.
    package func wait(until predicate: @escaping @Sendable (String) -> Bool) async throws -> Bool {
        let outcome = OneShot<Bool>()
        let immediate = state.withLock { state -> Bool? in
            if predicate(String(decoding: state.bytes, as: UTF8.self)) { return true }
            if state.ended { return false }
            state.watchers.append(Watcher(predicate: predicate, outcome: outcome))
            return nil
        }
        if let immediate { return immediate }
        return try await outcome.wait()
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
        let unsatisfied = state.withLock { state -> [Watcher] in
            state.ended = true
            defer { state.watchers = [] }
            return state.watchers
        }
        unsatisfied.forEach { $0.outcome.fulfil(false) }
        firstLine.fulfil(nil)
        finished.fulfil(())
    }

    private func append(_ chunk: ArraySlice<UInt8>) {
        let (line, satisfied) = state.withLock { state -> (String?, [Watcher]) in
            let hadLine = state.bytes.contains(UInt8(ascii: "\n"))
            state.bytes.append(contentsOf: chunk)
            var satisfied: [Watcher] = []
            if !state.watchers.isEmpty {
                let text = String(decoding: state.bytes, as: UTF8.self)
                satisfied = state.watchers.filter { $0.predicate(text) }
                state.watchers.removeAll { watcher in satisfied.contains { $0.outcome === watcher.outcome } }
            }
            guard !hadLine, let end = state.bytes.firstIndex(of: UInt8(ascii: "\n")) else { return (nil, satisfied) }
            return (String(decoding: state.bytes[..<end], as: UTF8.self), satisfied)
        }
        if let line { firstLine.fulfil(line) }
        satisfied.forEach { $0.outcome.fulfil(true) }
    }
}
