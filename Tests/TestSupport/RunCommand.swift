import Foundation
import WellPlateCore
import WellPlateNetworking

/// What a finished child process left behind.
package struct CommandResult: Sendable, CustomStringConvertible {
    package init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    package var status: Int32
    package var stdout: String
    package var stderr: String

    package var stdoutLines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast(stdout.hasSuffix("\n") ? 1 : 0)
    }

    package var description: String {
        "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }
}

package struct CommandNotFound: Error, CustomStringConvertible {
    package init(path: String) {
        self.path = path
    }

    package let path: String
    package var description: String { "no cassette executable at \(path); `swift test` builds it (the test target depends on it)" }
}

/// The `cassette` executable that `swift build` put next to the test runner
/// (both live in `.build/<triple>/debug`).
package func cassetteExecutable() throws -> URL {
    let directory: URL
    if let runner = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        directory = URL(fileURLWithPath: runner).deletingLastPathComponent()
    } else if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
        // macOS: the runner is Xcode's xctest; the test bundle sits in the build directory.
        directory = bundle.bundleURL.deletingLastPathComponent()
    } else {
        directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }
    let executable = directory.appendingPathComponent("cassette")
    guard FileManager.default.isExecutableFile(atPath: executable.path) else {
        throw CommandNotFound(path: executable.path)
    }
    return executable
}

/// Runs `cassette` with `arguments` in `cwd` and returns its exit status and output. stdin is
/// empty, stdout and stderr are pipes (so the tool sees no terminal) and `NO_COLOR` is set.
/// Started with posix_spawn (`runToCompletion`), whose reads and wait run on threads of their own.
package func runCassette(_ arguments: [String], cwd: URL, environment: [String: String] = [:]) async throws -> CommandResult {
    var variables = ["NO_COLOR": "1"]
    variables.merge(environment) { _, new in new }
    return try await runToCompletion(try cassetteExecutable().path, arguments, cwd: cwd, environment: variables)
}
