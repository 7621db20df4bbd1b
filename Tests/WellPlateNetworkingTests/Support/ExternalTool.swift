import Foundation

/// A program from PATH (swiftc, openapi-spec-validator), run to completion like `runCassette`.
enum ExternalTool {
    struct NotFound: Error, CustomStringConvertible {
        let name: String
        var description: String { "\(name) is not on PATH; scripts/ensure-deps.sh installs the project's tools" }
    }

    static func find(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `name` (looked up on PATH) with `arguments` in `cwd`; stdin is empty, output captured.
    static func run(_ name: String, _ arguments: [String], cwd: URL) async throws -> CommandResult {
        guard let executable = find(name) else { throw NotFound(name: name) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = cwd
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both pipes drain on threads of their own, as in `runCassette`: blocking reads must not
        // sit on the cooperative pool.
        async let output = onThread { stdout.fileHandleForReading.readDataToEndOfFile() }
        async let errors = onThread { stderr.fileHandleForReading.readDataToEndOfFile() }
        let (outData, errData) = await (output, errors)
        let status = await onThread {
            process.waitUntilExit()
            return process.terminationStatus
        }
        return CommandResult(status: status, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }

    private static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    /// openapi-spec-validator, installed with pip when missing (the project installs what it needs).
    static func openAPIValidator() async throws -> String {
        if find("openapi-spec-validator") == nil {
            let pip = try await run("python3", ["-m", "pip", "install", "--quiet", "openapi-spec-validator"], cwd: FileManager.default.temporaryDirectory)
            guard pip.status == 0 else { throw NotFound(name: "openapi-spec-validator (pip failed: \(pip.stderr))") }
        }
        return "openapi-spec-validator"
    }
}
