import Foundation
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

package struct PseudoTerminalError: Error, CustomStringConvertible {
    package init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    package let call: String
    package let code: Int32
    package var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
}

package enum PseudoTerminal {
    /// A new pseudo-terminal `columns` wide: the master (for reading what is written to the
    /// terminal) and the replica (to hand to a child as its stdout). Both are close-on-exec.
    package static func open(columns: Int) throws -> (master: Int32, replica: Int32) {
        // posix_openpt and friends are not visible from Swift's Glibc module; these are the calls they
        // make on Linux (the request numbers are the same on every architecture Swift supports there).
        let master = Glibc.open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw PseudoTerminalError(call: "open(/dev/ptmx)", code: errno) }
        let getNumber: UInt = 0x8004_5430  // TIOCGPTN
        let setLock: UInt = 0x4004_5431  // TIOCSPTLCK
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(master, setLock, &unlock) == 0, ioctl(master, getNumber, &number) == 0 else {
            let error = PseudoTerminalError(call: "ioctl(TIOCSPTLCK/TIOCGPTN)", code: errno)
            close(master)
            throw error
        }
        let replicaPath = "/dev/pts/\(number)"
        let replica = Glibc.open(replicaPath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard replica >= 0 else {
            let error = PseudoTerminalError(call: "open(\(replicaPath))", code: errno)
            close(master)
            throw error
        }
        var size = winsize(ws_row: 24, ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(replica, UInt(TIOCSWINSZ), &size) == 0 else {
            let error = PseudoTerminalError(call: "ioctl(TIOCSWINSZ)", code: errno)
            close(replica)
            close(master)
            throw error
        }
        return (master, replica)
    }
}

/// Runs `cassette` with stdout on a pseudo-terminal `columns` wide (stderr captured apart), as a
/// person at a terminal would, and returns what it printed with the terminal's `\r\n` turned into `\n`.
package func runCassetteOnTerminal(
    _ arguments: [String], cwd: URL, columns: Int, environment: [String: String] = [:]
) async throws -> (status: Int32, stdout: String) {
    let streams = ChildStreams(standardOutput: .terminal, terminalColumns: columns, directory: cwd.path, unsetEnvironment: ["COLUMNS"])
    let process = try ChildProcess(executable: try cassetteExecutable().path, arguments: arguments, environment: environment, streams: streams)
    let status = try await process.waitForExit()
    let code: Int32 =
        switch status {
        case .exited(let code): code
        case .signalled(let signal): 128 + signal
        }
    return (code, process.standardOutput.replacingOccurrences(of: "\r\n", with: "\n"))
}
