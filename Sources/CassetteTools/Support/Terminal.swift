import Foundation
import WellPlateCore
import WellPlateNetworking

/// Output conventions: results on stdout, diagnostics on stderr, colour only on a terminal and
/// never when `NO_COLOR` is set (https://no-color.org).
package enum Terminal {
    package static var useColor: Bool { ANSIColor.isEnabled }

    package typealias Color = ANSIColor

    package static func paint(_ text: String, _ color: Color) -> String {
        color.paint(text)
    }

    /// Writes a line to stdout at once (no buffer), so a parent process reading a pipe sees it.
    package static func printLine(_ line: String) {
        write(Data((line + "\n").utf8))
    }

    /// Raw bytes to stdout, after anything `print` buffered, so the order on the pipe is kept.
    package static func write(_ data: Data) {
        fflush(nil)
        StandardStream.output.write(data)
    }

    package static func printError(_ message: String) {
        let prefix = isatty(STDERR_FILENO) == 1 && useColor ? "\u{1B}[31merror:\u{1B}[0m " : "error: "
        StandardStream.error.write(prefix + message + "\n")
    }

    package static func printWarning(_ message: String) {
        StandardStream.error.write("warning: " + message + "\n")
    }
}
