import Foundation
import WellPlateCore
import WellPlateNetworking

/// Output conventions: results on stdout, diagnostics on stderr, colour only on a terminal and
/// never when `NO_COLOR` is set (https://no-color.org).
package enum Terminal {
    package static let useColor: Bool = {
        if let noColor = ProcessInfo.processInfo.environment["NO_COLOR"], !noColor.isEmpty { return false }
        if ProcessInfo.processInfo.environment["TERM"] == "dumb" { return false }
        return isatty(STDOUT_FILENO) == 1
    }()

    package enum Color: String {
        case red = "31"
        case green = "32"
        case yellow = "33"
        case blue = "34"
        case dim = "2"
        case bold = "1"
    }

    package static func paint(_ text: String, _ color: Color) -> String {
        useColor ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
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
