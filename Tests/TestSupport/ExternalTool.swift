import Foundation
import WellPlateCore
import WellPlateNetworking

/// A command-line program from outside the package (swiftc, detect-secrets, openapi-spec-validator),
/// run to completion like `cassette` is: output read on threads of their own. Python tools are
/// installed on demand by scripts/ensure-pip-tool.sh, so the tests work on a fresh machine.
package enum ExternalTool {
    package static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Installs `command` from PyPI when it is missing; throws with the installer's message.
    package static func ensure(_ command: String, package: String? = nil) async throws {
        let script = packageRoot.appendingPathComponent("scripts/ensure-pip-tool.sh").path
        let result = try await run(["bash", script, command] + (package.map { [$0] } ?? []), cwd: packageRoot)
        guard result.status == 0 else {
            throw ChildProcessError("could not install \(command): \(result.stderr)")
        }
    }

    /// openapi-spec-validator, installed with pip when missing.
    package static func openAPIValidator() async throws -> String {
        try await ensure("openapi-spec-validator")
        return "openapi-spec-validator"
    }

    /// Runs `name` with `arguments` in `cwd`; stdin is empty, output captured.
    package static func run(_ name: String, _ arguments: [String], cwd: URL) async throws -> CommandResult {
        try await run([name] + arguments, cwd: cwd)
    }

    /// Runs `arguments` (looked up on PATH, with ~/.local/bin added, where user installs of pip go) in `cwd`.
    package static func run(_ arguments: [String], cwd: URL) async throws -> CommandResult {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":" + NSHomeDirectory() + "/.local/bin"
        return try await runToCompletion("/usr/bin/env", arguments, cwd: cwd, environment: ["PATH": path])
    }
}
