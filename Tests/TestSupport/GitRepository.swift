import Foundation
import WellPlateCore
import WellPlateNetworking

/// A throwaway git repository in a temporary directory, for the textconv and merge-driver tests.
/// `cassette` is on its PATH, so the configuration the README shows works unchanged.
package final class GitRepository {
    package let directory: URL

    package init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("git-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    package func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// `git init` with an identity and a default branch, so nothing depends on the user's setup.
    package func initialize() async throws {
        try await git("init", "-q", "-b", "main")
        try await git("config", "user.email", "tests@example.com")
        try await git("config", "user.name", "Tests")
        try await git("config", "commit.gpgsign", "false")
    }

    /// Runs git in the repository; throws with its output when it fails, unless `allowFailure`.
    @discardableResult
    package func git(_ arguments: String..., allowFailure: Bool = false) async throws -> CommandResult {
        let tools = try cassetteExecutable().deletingLastPathComponent().path
        let environment = [
            "PATH": tools + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            "NO_COLOR": "1", "GIT_CONFIG_NOSYSTEM": "1", "HOME": directory.path,
        ]
        let result = try await runToCompletion("/usr/bin/env", ["git"] + arguments, cwd: directory, environment: environment)
        if result.status != 0 && !allowFailure {
            throw ChildProcessError("git \(arguments.joined(separator: " ")) failed: \(result)")
        }
        return result
    }
}
