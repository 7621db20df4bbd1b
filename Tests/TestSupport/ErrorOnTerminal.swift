import Foundation
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// What `cassette` wrote when its standard error was a terminal.
package struct TerminalRun: Sendable, CustomStringConvertible {
    package var status: Int32
    /// Standard output: a pipe of its own, or empty when it shared the terminal.
    package var stdout: String
    /// Everything that reached the terminal, control sequences and all; only the terminal's
    /// `\r\n` line ends are turned into `\n`, so every `\r` left was written by the program.
    package var terminal: String

    package var description: String {
        "exit \(status)\n--- stdout\n\(stdout)--- terminal\n\(terminal.debugDescription)"
    }
}

/// Runs `cassette` with stderr on a pseudo-terminal `columns` wide, as a person at a terminal
/// would; stdout is a pipe, or the same terminal with `outputOnTerminal`. `environment` entries
/// override the test process's own (without `NO_COLOR` and `TERM` unless given).
package func runCassetteWithErrorOnTerminal(
    _ arguments: [String], cwd: URL, columns: Int = 100, outputOnTerminal: Bool = false, environment: [String: String] = [:]
) async throws -> TerminalRun {
    let (master, replica) = try PseudoTerminal.open(columns: columns)
    defer { close(master) }

    let process = Process()
    process.executableURL = try cassetteExecutable()
    process.arguments = arguments
    process.currentDirectoryURL = cwd
    var variables = ProcessInfo.processInfo.environment
    for name in ["COLUMNS", "NO_COLOR", "TERM"] { variables[name] = nil }
    variables.merge(environment) { _, new in new }
    process.environment = variables
    let terminal = FileHandle(fileDescriptor: replica, closeOnDealloc: false)
    let output = Pipe()
    process.standardOutput = outputOnTerminal ? terminal : output
    process.standardError = terminal
    process.standardInput = FileHandle.nullDevice
    do {
        try process.run()
    } catch {
        close(replica)
        throw error
    }
    // Only the child holds the terminal now, so reading the master ends (EIO) when it exits.
    close(replica)
    // An unused pipe would never reach its end: only the one the child writes to is read.
    let reader: FileHandle? = outputOnTerminal ? nil : output.fileHandleForReading
    async let printed = onOwnThread { reader?.readDataToEndOfFile() ?? Data() }
    async let shown = onOwnThread {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(master, &buffer, buffer.count)
            if count > 0 {
                bytes += buffer[..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        return bytes
    }
    let (stdout, screen) = await (printed, shown)
    let status = await onOwnThread {
        process.waitUntilExit()
        return process.terminationStatus
    }
    let text = String(decoding: screen, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
    return TerminalRun(status: status, stdout: String(decoding: stdout, as: UTF8.self), terminal: text)
}

/// Blocking reads and waits off the cooperative pool (on Linux Dispatch's global queues are it).
private func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}
