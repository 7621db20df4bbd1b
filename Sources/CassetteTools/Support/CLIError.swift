/// A failure the user can act on: printed as one line on stderr, then the process exits.
import WellPlateCore
import WellPlateNetworking

struct CLIError: Error, CustomStringConvertible {
    let message: String
    let exitStatus: Int32

    init(_ message: String, exitStatus: Int32 = 1) {
        self.message = message
        self.exitStatus = exitStatus
    }

    /// Bad flags, missing or unreadable input files: status 2, as `diff` and `grep` use it.
    static func usage(_ message: String) -> CLIError {
        CLIError(message, exitStatus: 2)
    }

    var description: String { message }
}
