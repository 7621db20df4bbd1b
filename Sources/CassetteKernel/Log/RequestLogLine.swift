import NIOCore
import NIOHTTP1
import WellPlateCore

/// The pieces of one request-log line: method, path (secrets redacted), status, duration,
/// outcome. Built straight into the log's buffer, because it runs for every request on an event loop.
package enum RequestLogLine {
    /// The status as printed: coloured by class on a terminal.
    package static func status(_ code: Int) -> String {
        (code >= 500 ? ANSIColor.red : code >= 400 ? .yellow : .green).paint(String(code))
    }

    package static func outcome(_ source: ProxyAnswer.Source) -> String {
        switch source {
        case .replayed: replayed
        case .recorded: recorded
        case .passthrough: passthrough
        case .miss: miss
        case .stale: stale
        case .error: error
        case .endpoint: endpoint
        }
    }

    private static let replayed = ANSIColor.blue.paint("replayed")
    private static let recorded = ANSIColor.green.paint("recorded")
    private static let passthrough = ANSIColor.yellow.paint("passthrough")
    private static let miss = ANSIColor.red.paint("miss")
    private static let stale = ANSIColor.red.paint("stale")
    private static let error = ANSIColor.red.paint("error")
    private static let endpoint = ANSIColor.dim.paint("cassette")

    package static func append(method: NIOHTTP1.HTTPMethod, target: String, status: String, started: NIODeadline, outcome: String, to line: inout [UInt8]) {
        // Hundredths of a millisecond by integer arithmetic: String(format:) costs more than the lookup.
        let hundredths = (Int((NIODeadline.now() - started).nanoseconds) + 5_000) / 10_000
        let fraction = hundredths % 100
        line.append(contentsOf: method.rawValue.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: target.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: status.utf8)
        line.append(UInt8(ascii: " "))
        appendDecimal(hundredths / 100, to: &line)
        line.append(UInt8(ascii: "."))
        if fraction < 10 { line.append(UInt8(ascii: "0")) }
        appendDecimal(fraction, to: &line)
        line.append(contentsOf: "ms ".utf8)
        line.append(contentsOf: outcome.utf8)
    }

    private static func appendDecimal(_ value: Int, to line: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, to: &line) }
        line.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
