import WellPlateCore
import WellPlateNetworking

/// A failure the user can act on: printed as one line on stderr, then the process exits.
package struct CLIError: Error, CustomStringConvertible {
    package let message: String
    package let exitStatus: Int32

    package init(_ message: String, exitStatus: Int32 = 1) {
        self.message = message
        self.exitStatus = exitStatus
    }

    /// Bad flags, missing or unreadable input files: status 2, as `diff` and `grep` use it.
    package static func usage(_ message: String) -> CLIError {
        CLIError(message, exitStatus: 2)
    }

    package var description: String { message }
}
