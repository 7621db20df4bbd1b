import Foundation

/// Runs `executable` (a path, or a name looked up on PATH) with `arguments` in `cwd` to
/// completion through `ChildProcess` (posix_spawn; stdin is /dev/null, stdout and stderr are
/// captured). Not Foundation's `Process`: its `run()` in Swift 6.3.1 on Linux over-reads
/// `/proc/self/fd` entries and crashes the test run now and then when many tests start processes
/// at once (swift-corelibs-foundation#5472). `sh` changes directory, as posix_spawn cannot.
package func runToCompletion(
    _ executable: String, _ arguments: [String], cwd: URL, environment: [String: String] = [:], timeout: Duration = .seconds(900)
) async throws -> CommandResult {
    let commandLine = ["-c", #"cd "$0" && exec "$@""#, cwd.path, executable] + arguments
    return try await withChildProcess("/bin/sh", arguments: commandLine, environment: environment) { process in
        let status = try await process.waitForExit(timeout: timeout)
        let code: Int32 =
            switch status {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        return CommandResult(status: code, stdout: process.standardOutput, stderr: process.standardError)
    }
}
