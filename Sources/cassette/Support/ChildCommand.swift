import Foundation

/// Runs the user's command for `cassette run` with the proxy's address in its environment.
///
/// Spawned with `posix_spawnp` rather than `Process`, so the command starts as it would from a
/// shell: every signal at its default disposition (SwiftNIO ignores SIGPIPE in this process, and
/// an ignored signal survives exec: a pipeline such as `yes | head` would see EPIPE errors instead
/// of ending quietly) and none blocked (Swift's pool threads block nearly every signal).
enum ChildCommand {
    /// The exit status (128 + signal number when killed by a signal; 127 when not found).
    static func run(_ command: [String], environment extra: [String: String], forwarding signals: SignalWaiter) async -> Int32 {
        let environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        let pid: pid_t
        switch spawn(command, environment: environment) {
        case .success(let spawned):
            pid = spawned
        case .failure(let failure):
            let code = failure.code
            let reason = code == ENOENT ? "command not found" : String(cString: strerror(code))
            Terminal.printError("cannot run \(command[0]): \(reason)")
            // As a shell does: 127 for a command not found, 126 for one that cannot be executed.
            return code == ENOENT ? 127 : 126
        }
        let forwarder = Task {
            while let number = await signals.next() {
                kill(pid, number)
            }
        }
        let status = await waitForExit(pid)
        forwarder.cancel()
        return status
    }

    /// `posix_spawnp`'s error number.
    private struct SpawnFailure: Error {
        let code: Int32
    }

    private static func spawn(_ command: [String], environment: [String: String]) -> Result<pid_t, SpawnFailure> {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let arguments = command.map { strdup($0) } + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        var pid = pid_t()
        let code = posix_spawnp(&pid, command[0], nil, &attributes, arguments, variables)
        return code == 0 ? .success(pid) : .failure(SpawnFailure(code: code))
    }

    /// Waits on a thread of its own: `waitpid` blocks, which the cooperative pool must never do.
    private static func waitForExit(_ pid: pid_t) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                // WIFEXITED / WTERMSIG are macros Swift cannot import: the low 7 bits hold the
                // terminating signal (0 for a normal exit), the next byte the exit code.
                let signal = status & 0x7F
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
            }
        }
    }
}
