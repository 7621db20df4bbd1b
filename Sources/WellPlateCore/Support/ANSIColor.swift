import Foundation

/// Colours of terminal output: the command line's messages and the proxy's request log. On when
/// standard output is a terminal, unless `NO_COLOR` is set (no-color.org) or `TERM` is `dumb`.
package enum ANSIColor: String, Sendable {
    case red = "31"
    case green = "32"
    case yellow = "33"
    case blue = "34"
    case dim = "2"
    case bold = "1"

    /// Decided once per process: the environment and the terminal do not change while it runs.
    package static let isEnabled: Bool = {
        if let noColor = ProcessInfo.processInfo.environment["NO_COLOR"], !noColor.isEmpty { return false }
        if ProcessInfo.processInfo.environment["TERM"] == "dumb" { return false }
        return isatty(STDOUT_FILENO) == 1
    }()

    /// `text` in this colour when colours are on, else as it is.
    package func paint(_ text: String) -> String {
        Self.isEnabled ? "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" : text
    }
}
