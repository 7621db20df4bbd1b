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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        let tools = try cassetteExecutable().deletingLastPathComponent().path
        environment["PATH"] = tools + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["NO_COLOR"] = "1"
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["HOME"] = directory.path
        process.environment = environment
        let output = Pipe()
        // stderr goes to a file: git writes little there, and one pipe needs one reader only.
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("git-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let errors = try FileHandle(forWritingTo: errorFile)
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let out = await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
            Thread.detachNewThread {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: data)
            }
        }
        try errors.close()
        let err = (try? Data(contentsOf: errorFile)) ?? Data()
        let result = CommandResult(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
        if result.status != 0 && !allowFailure {
            throw ChildProcessError("git \(arguments.joined(separator: " ")) failed: \(result)")
        }
        return result
    }
}
