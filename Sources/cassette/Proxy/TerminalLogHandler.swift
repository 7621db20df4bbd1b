import CassetteTools
import Logging

/// The proxy's `Logger` on the command line: warnings as `warning: …` and failures as `error: …`
/// on stderr, other lines as they are, the way every command reports.
struct TerminalLogHandler: LogHandler {
    var logLevel: Logger.Level = .notice
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        switch event.level {
        case .error, .critical: Terminal.printError("\(event.message)")
        case .warning: Terminal.printWarning("\(event.message)")
        default: StandardStream.error.write("\(event.message)\n")
        }
    }

    /// The logger every proxy command hands the proxy.
    static var logger: Logger {
        Logger(label: "cassette.proxy") { _ in TerminalLogHandler() }
    }
}
