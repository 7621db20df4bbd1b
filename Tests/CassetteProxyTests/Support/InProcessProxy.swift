import Foundation
import HTTPTypes
import Logging
import Synchronization
import TestSupport
import WellPlateCore
import WellPlateNetworking

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket
@testable import cassette

#if canImport(Glibc)
import Glibc
#endif

/// A proxy started inside the test process from a `cassette record`, `replay` or `run` command
/// line: the command's own flag parsing and `ProxyRunner`, the same server, without a process to
/// spawn (nor `run`'s command). What only a process shows (signals, exit statuses, terminal
/// output) is tested over the binary instead (`withProxy`).
final class InProcessProxy: RunningProxy {
    /// As announced: `http://HOST:PORT`.
    let url: URL
    private let runner: ProxyRunner
    private let running: ProxyRunner.Running
    private let requestLog: PipeLines
    private let log: CapturedLog
    private let stopped = Mutex<ProxyRunner.Stopped?>(nil)

    fileprivate init(runner: ProxyRunner, running: ProxyRunner.Running, requestLog: PipeLines, log: CapturedLog) {
        self.runner = runner
        self.running = running
        self.requestLog = requestLog
        self.log = log
        url = URL(string: running.address)!
    }

    var port: Int { url.port ?? 0 }

    /// Stops it as SIGTERM would: requests in flight answered, the store closed; once only.
    @discardableResult
    func stop() async -> ProxyRunner.Stopped {
        if let done = stopped.withLock({ $0 }) { return done }
        let result = await runner.stop(running)
        stopped.withLock { $0 = result }
        await requestLog.finish()
        return result
    }

    /// What `cassette` would print on stdout, colour removed: the `listening on` lines, the request
    /// lines, and (once stopped) the summary.
    var outputLines: [String] {
        running.announcement + requestLog.lines + (stopped.withLock { $0 }?.summary ?? [])
    }

    /// The `recorded N, replayed N, missed N, ...` line, once stopped.
    var summaryLine: String? {
        stopped.withLock { $0 }?.summary.first
    }

    /// What `cassette` would print on stderr: warnings and errors.
    var standardError: String { log.text }

    /// Waits until a request line containing `fragment` was logged (lines are written after the
    /// answer, from the request log's thread).
    func waitForLogLine(containing fragment: String, timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        // Matched against the text as printed, so a fragment may end with the line's newline.
        while !requestLog.text.contains(fragment) {
            guard ContinuousClock.now < deadline else {
                throw ChildProcessError("no request line containing \"\(fragment)\" within \(timeout); lines: \(requestLog.lines)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// Starts the proxy `cassette ARGUMENTS` describes (`record …`, `replay …`, or `run … -- COMMAND`,
/// whose COMMAND is not run) in this process, runs `body` and always stops it afterwards.
func withInProcessProxy<Result>(_ arguments: [String], _ body: (InProcessProxy) async throws -> Result) async throws -> Result {
    // In-process proxies share the test process's cooperative pool (two threads here) with every
    // test running meanwhile: as many at once as the binary's proxies were (`ProxySlots`), so a
    // full parallel run does not starve their tasks (seen: handshakes and streamed bodies timing
    // out). A proxy started inside another's body (recording through one, replaying with
    // another) takes no second slot, so nesting cannot deadlock.
    try await ProxySlots.shared.withSlot { try await startingInProcessProxy(arguments, body) }
}

private func startingInProcessProxy<Result>(_ arguments: [String], _ body: (InProcessProxy) async throws -> Result) async throws -> Result {
    guard let command = try Cassette.parseAsRoot(arguments) as? any ServingCommand else {
        throw ChildProcessError("withInProcessProxy starts `record`, `replay` or `run`, not \(arguments.first ?? "nothing")")
    }
    let log = CapturedLog()
    let logger = Logger(label: "test") { _ in log }
    let requestLog = try PipeLines()
    let runner: ProxyRunner
    let running: ProxyRunner.Running
    do {
        runner = try command.makeRunner(logger: logger, requestLogDescriptor: requestLog.writeDescriptor)
        running = try await runner.start()
    } catch {
        await requestLog.finish()
        throw error
    }
    let proxy = InProcessProxy(runner: runner, running: running, requestLog: requestLog, log: log)
    do {
        let result = try await body(proxy)
        await proxy.stop()
        return result
    } catch {
        await proxy.stop()
        throw error
    }
}

/// `cassette replay --port 0 --db STORE ARGUMENTS`, in this process, around `body`.
func withInProcessReplayer<Result>(
    store: String, arguments: [String] = [], _ body: (InProcessProxy) async throws -> Result
) async throws
    -> Result
{
    try await withInProcessProxy(["replay", "--port", "0", "--db", store] + arguments, body)
}

/// `cassette record --upstream UPSTREAM --port 0 --db STORE ARGUMENTS`, in this process, around `body`.
func withInProcessRecorder<Result>(
    upstream: URL, store: String, arguments: [String] = [], _ body: (InProcessProxy) async throws -> Result
) async throws -> Result {
    try await withInProcessProxy(["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store] + arguments, body)
}

/// The lines written to a pipe, read by a thread of its own (the request log writes from its
/// thread and must never block on a reader), colour codes removed.
private final class PipeLines: Sendable {
    let writeDescriptor: Int32
    private let readDescriptor: Int32
    private let received = Mutex("")
    private let done = Atomic(false)
    private let drained = OneShot<Void>()

    init() throws {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw ChildProcessError("pipe failed: \(String(cString: strerror(errno)))") }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
        let thread = Thread { [self] in drain() }
        thread.start()
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(readDescriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            let chunk = String(decoding: buffer[0..<count], as: UTF8.self)
            received.withLock { $0 += chunk }
        }
        close(readDescriptor)
        drained.fulfil(())
    }

    /// Ends the pipe, and waits until the reader has taken everything written to it.
    func finish() async {
        if !done.exchange(true, ordering: .acquiringAndReleasing) { close(writeDescriptor) }
        try? await drained.wait()
    }

    /// Everything read so far, colour removed.
    var text: String {
        received.withLock { $0 }.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }

    var lines: [String] {
        text.split(separator: "\n").map(String.init)
    }
}

/// A `LogHandler` that keeps what the proxy reports, as `cassette` would print it on stderr.
private final class CapturedLog: LogHandler, Sendable {
    private let lines = Mutex("")

    var text: String { lines.withLock { $0 } }

    var logLevel: Logger.Level {
        get { .notice }
        set {}
    }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        let prefix =
            switch event.level {
            case .error, .critical: "error: "
            case .warning: "warning: "
            default: ""
            }
        lines.withLock { $0 += prefix + "\(event.message)\n" }
    }
}

// What the tests that started the binary read from its stdout, for the same tests in-process.
extension InProcessProxy {
    /// stdout as `cassette` would print it (the lines of `outputLines`, each ending in a newline).
    var standardOutput: String {
        outputLines.map { $0 + "\n" }.joined()
    }

    /// The `listening on` lines as printed, one per listener.
    var lines: [String] {
        running.announcement.filter { $0.hasPrefix("listening on ") }
    }

    /// A multi-host proxy's listeners in the order announced: each one's address and the upstream
    /// it stands in for (from `listening on http://HOST:PORT for UPSTREAM`).
    var listeners: [(url: URL, upstream: String)] {
        lines.compactMap { line in
            let parts = line.dropFirst("listening on ".count).components(separatedBy: " for ")
            guard parts.count == 2, let url = URL(string: parts[0]) else { return nil }
            return (url: url, upstream: parts[1])
        }
    }

    /// Listener `index`'s URL for `pathAndQuery`.
    func url(_ index: Int, _ pathAndQuery: String) -> URL {
        URL(string: listeners[index].url.absoluteString + pathAndQuery)!
    }

    func get(_ index: Int, _ pathAndQuery: String, headers: HTTPFields = [:]) async throws -> TransportResponse {
        try await ProxyClient.send(.get, url(index, pathAndQuery), headers: headers)
    }
}
