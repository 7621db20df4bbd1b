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
    let streams = ChildStreams(
        standardOutput: outputOnTerminal ? .terminal : .captured, standardError: .terminal, terminalColumns: columns, directory: cwd.path,
        unsetEnvironment: ["COLUMNS", "NO_COLOR", "TERM"])
    let process = try ChildProcess(executable: try cassetteExecutable().path, arguments: arguments, environment: environment, streams: streams)
    let status = try await process.waitForExit()
    let code: Int32 =
        switch status {
        case .exited(let code): code
        case .signalled(let signal): 128 + signal
        }
    // Sharing the terminal, both streams are read as the child's stdout.
    let screen = outputOnTerminal ? process.standardOutput : process.standardError
    return TerminalRun(
        status: code, stdout: outputOnTerminal ? "" : process.standardOutput, terminal: screen.replacingOccurrences(of: "\r\n", with: "\n"))
}
