import Foundation
import Synchronization
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// How a child process ended.
package enum ExitStatus: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signalled(Int32)

    package var description: String {
        switch self {
        case .exited(let code): "exited with code \(code)"
        case .signalled(let signal): "killed by signal \(signal)"
        }
    }
}

package struct ChildProcessError: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// Where a child's stdout or stderr goes.
package enum ChildOutput: Sendable, Equatable {
    /// A pipe read in the background (`standardOutput`, `standardError`).
    case captured
    /// A pseudo-terminal, as for a person at a terminal, captured the same way (lines end in
    /// `\r\n`). When both streams go to it, both are in `standardOutput`.
    case terminal
    /// A descriptor the test owns, such as the write end of its own pipe; the child gets a copy.
    case descriptor(Int32)
}

/// How a child is started beyond its command line.
package struct ChildStreams: Sendable {
    package var standardOutput = ChildOutput.captured
    package var standardError = ChildOutput.captured
    /// The width of the pseudo-terminal, when a stream goes to one.
    package var terminalColumns = 120
    /// The working directory; the test process's own when `nil`.
    package var directory: String?
    /// Variables of the test process's environment the child does not get (`COLUMNS`, `TERM`).
    package var unsetEnvironment: [String] = []

    package init(
        standardOutput: ChildOutput = .captured, standardError: ChildOutput = .captured, terminalColumns: Int = 120, directory: String? = nil,
        unsetEnvironment: [String] = []
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.terminalColumns = terminalColumns
        self.directory = directory
        self.unsetEnvironment = unsetEnvironment
    }
}

/// A running executable whose stdout and stderr are captured in the background.
///
/// Prefer `withChildProcess`, which always stops the child. The child's stdin is `/dev/null`.
///
/// Still `posix_spawn` rather than swift-subprocess (which `cassette run` uses): the tests need a
/// handle that outlives one scope, signals sent from any task, a pseudo-terminal as stdout and
/// output read line by line while the child runs; Subprocess 1.0's `run` gives the process only
/// inside its closure, so each of those would be rebuilt around it.
package final class ChildProcess: Sendable {
    package let executable: String
    package let arguments: [String]
    package let processIdentifier: pid_t
    private let outputCapture: OutputCapture?
    private let errorCapture: OutputCapture?
    private let termination = OneShot<ExitStatus>()
    /// Held while signalling and while reaping, so a signal never reaches a recycled pid.
    private let reapLock = Mutex(false)

    /// Starts `executable` (a path) with `arguments`; `environment` entries override the
    /// test process's own environment. With `standardOutputOnTerminal` the child's stdout is a
    /// pseudo-terminal (as for a person at a terminal; lines then end in `\r\n`).
    package convenience init(
        executable: String, arguments: [String] = [], environment: [String: String] = [:], standardOutputOnTerminal: Bool = false
    ) throws {
        try self.init(
            executable: executable, arguments: arguments, environment: environment,
            streams: ChildStreams(standardOutput: standardOutputOnTerminal ? .terminal : .captured))
    }

    /// Starts `executable` with its output where `streams` says, in its directory.
    package init(executable: String, arguments: [String] = [], environment: [String: String] = [:], streams: ChildStreams) throws {
        self.executable = executable
        self.arguments = arguments
        var mergedEnvironment = ProcessInfo.processInfo.environment
        for name in streams.unsetEnvironment { mergedEnvironment[name] = nil }
        mergedEnvironment.merge(environment) { _, override in override }
        let (pid, output, errors) = try Self.spawnLock.withLock { _ in
            // Glibc's module does not export pipe2, so close-on-exec is set after pipe(). The
            // lock keeps another test's spawn from inheriting these pipes in between: a child
            // holding our write end would delay end-of-file until it exits.
            var opened: [Int32] = []
            do {
                let terminal: (master: Int32, replica: Int32)? =
                    streams.standardOutput == .terminal || streams.standardError == .terminal
                    ? try PseudoTerminal.open(columns: streams.terminalColumns) : nil
                if let terminal { opened += [terminal.master, terminal.replica] }
                var terminalRead = terminal?.master
                func ends(_ destination: ChildOutput) throws -> (read: Int32?, write: Int32) {
                    switch destination {
                    case .captured:
                        let pipe = try Self.makePipe()
                        opened += [pipe.read, pipe.write]
                        return pipe
                    case .terminal:
                        // Read once, by the first stream that goes there.
                        defer { terminalRead = nil }
                        return (terminalRead, terminal!.replica)
                    case .descriptor(let descriptor):
                        return (nil, descriptor)
                    }
                }
                let output = try ends(streams.standardOutput)
                let errors = try ends(streams.standardError)
                let pid = try Self.spawn(
                    executable, arguments: arguments, environment: mergedEnvironment, stdout: output.write, stderr: errors.write,
                    directory: streams.directory)
                return (pid, output, errors)
            } catch {
                opened.forEach { _ = close($0) }
                throw error
            }
        }
        processIdentifier = pid
        // The child holds its own copies now; a test's own descriptor stays the test's.
        for (stream, ends) in [(streams.standardOutput, output), (streams.standardError, errors)] {
            if case .descriptor = stream { continue }
            if stream == .terminal && ends.read == nil { continue }
            close(ends.write)
        }
        outputCapture = output.read.map { OutputCapture(draining: $0, name: "stdout of \(executable)") }
        errorCapture = errors.read.map { OutputCapture(draining: $0, name: "stderr of \(executable)") }
        let reaper = Thread { [self] in reap() }
        reaper.name = "reap \(processIdentifier)"
        reaper.start()
    }

    /// Everything the child wrote to stdout so far.
    package var standardOutput: String { outputCapture?.text ?? "" }
    /// Everything the child wrote to stderr so far.
    package var standardError: String { errorCapture?.text ?? "" }
    /// `nil` while the child runs.
    package var exitStatus: ExitStatus? { termination.value }

    /// The first stdout line, without its newline.
    package func firstLineOfOutput(timeout: Duration = Patience.process) async throws -> String {
        guard let stdout = outputCapture else { throw ChildProcessError("the stdout of \(executable) is not captured") }
        let line = try await withTimeout(timeout, "the first line from \(executable)") {
            try await stdout.firstLine.wait()
        }
        guard let line else {
            throw ChildProcessError("\(executable) closed stdout without writing a line; stderr: \(standardError)")
        }
        return line
    }

    /// Waits until stdout satisfies `predicate`, e.g. for a line the child logs after answering.
    package func waitForOutput(timeout: Duration = Patience.process, _ what: String, until predicate: @escaping @Sendable (String) -> Bool) async throws {
        guard let stdout = outputCapture else { throw ChildProcessError("the stdout of \(executable) is not captured") }
        let satisfied = try await withTimeout(timeout, "\(what) on the stdout of \(executable)") {
            try await stdout.wait(until: predicate)
        }
        guard satisfied else {
            throw ChildProcessError("\(executable) closed stdout before \(what); stdout: \(standardOutput) stderr: \(standardError)")
        }
    }

    /// Sends `signal` unless the child has already exited.
    package func send(signal: Int32) {
        reapLock.withLock { reaped in
            if !reaped { kill(processIdentifier, signal) }
        }
    }

    /// Waits for the child to exit, and for its output to be fully captured.
    package func waitForExit(timeout: Duration = Patience.process) async throws -> ExitStatus {
        let termination = self.termination
        let stdout = outputCapture
        let stderr = errorCapture
        return try await withTimeout(timeout, "\(executable) to exit") {
            let status = try await termination.wait()
            // Output written just before exiting is still in the pipes; read it to the end.
            try await stdout?.finished.wait()
            try await stderr?.finished.wait()
            return status
        }
    }

    /// SIGTERM, then SIGKILL if the child is still running after `gracePeriod`. Not affected by
    /// the calling task's cancellation: the child is always gone when this returns.
    ///
    /// The SIGKILL is armed on a thread of its own, not with `Task.sleep`: on a loaded two-core
    /// machine the cooperative pool has two threads, and tests that hold them in blocking calls
    /// delayed a sleeping timer until the child had finished on its own (a `sleep 30` child ignoring
    /// SIGTERM exited 0 fifty seconds in, instead of being killed after 300 ms).
    @discardableResult
    package func terminate(gracePeriod: Duration = .seconds(5)) async -> ExitStatus {
        if let status = exitStatus { return status }
        send(signal: SIGTERM)
        let microseconds = gracePeriod.components.seconds * 1_000_000 + gracePeriod.components.attoseconds / 1_000_000_000_000
        let killer = Thread { [self] in
            usleep(UInt32(clamping: microseconds))
            // A no-op once the child is reaped, so never a pid the kernel handed on.
            send(signal: SIGKILL)
        }
        killer.start()
        let termination = self.termination
        // SIGKILL cannot be caught, so this wait ends.
        let status = await Task { try? await termination.wait() }.value ?? .signalled(SIGKILL)
        // Output written just before exiting is still in the pipes; read it to the end.
        _ = await Task { try? await waitForExit(timeout: Patience.process) }.value
        return status
    }

    private func reap() {
        // Wait without reaping first, so that `send(signal:)` never targets a pid the kernel
        // could already have handed to another process.
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        let status = reapLock.withLock { reaped -> ExitStatus in
            var raw: Int32 = 0
            while waitpid(processIdentifier, &raw, 0) < 0 && errno == EINTR {}
            reaped = true
            // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import.
            let signal = raw & 0x7F
            return signal == 0 ? .exited((raw >> 8) & 0xFF) : .signalled(signal)
        }
        termination.fulfil(status)
    }

    /// Closes every descriptor from 3 up in the child. Descriptors the test process opens without
    /// close-on-exec (Foundation's `Pipe`, used by `runCassette`) would otherwise leak into a
    /// long-lived child, and another test waiting for end-of-file on that pipe would wait for the
    /// unrelated child to exit.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        // glibc 2.34+; Swift's Glibc module does not export it. A nil handle is RTLD_DEFAULT.
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
        for descriptor in open where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// The child starts in `directory`. glibc 2.29+; Swift's Glibc module does not export it.
    private static func changeDirectory(_ actions: inout posix_spawn_file_actions_t, to directory: String) throws {
        typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else {
            throw ChildProcessError("this C library cannot start a child in another directory (posix_spawn_file_actions_addchdir_np)")
        }
        _ = unsafeBitCast(symbol, to: AddChdir.self)(&actions, directory)
    }

    /// Serializes pipe creation and spawning across all children started by the tests.
    private static let spawnLock = Mutex(())

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else {
            throw ChildProcessError("pipe failed: \(String(cString: strerror(errno)))")
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        return (descriptors[0], descriptors[1])
    }

    private static func spawn(
        _ executable: String,
        arguments: [String],
        environment: [String: String],
        stdout: Int32,
        stderr: Int32,
        directory: String? = nil
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        closeInheritedDescriptors(&actions)
        if let directory { try changeDirectory(&actions, to: directory) }

        // The test runner may block or ignore signals; the child starts with the defaults.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGCHLD] { sigaddset(&defaultSignals, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw ChildProcessError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return pid
    }
}

/// Runs `body` with a started child process and always stops the child afterwards (SIGTERM,
/// then SIGKILL after `gracePeriod`), also when `body` throws.
///
/// - Parameter executable: a path, or the name of a product built next to the tests (`sample-api`).
package func withChildProcess<Result>(
    _ executable: String,
    arguments: [String] = [],
    environment: [String: String] = [:],
    standardOutputOnTerminal: Bool = false,
    gracePeriod: Duration = .seconds(5),
    _ body: (ChildProcess) async throws -> Result
) async throws -> Result {
    let path = executable.contains("/") ? executable : try BuiltProducts.executable(named: executable)
    let process = try ChildProcess(executable: path, arguments: arguments, environment: environment, standardOutputOnTerminal: standardOutputOnTerminal)
    let outcome: Swift.Result<Result, any Error>
    do {
        outcome = .success(try await body(process))
    } catch {
        outcome = .failure(error)
    }
    await process.terminate(gracePeriod: gracePeriod)
    return try outcome.get()
}
