import Foundation
import Logging
import NIOCore
import NIOHTTP1
import WellPlateCore

/// Where the proxy reports what it served: one request-log line per answer, and the warnings that
/// go with them (stale recordings, failed streams), in line with the log when requests are logged
/// and through the caller's `Logger` when they are not. The proxy never prints.
package struct ProxyLog: Sendable {
    /// `nil` when requests are not logged (`--quiet`).
    package let requestLog: RequestLog?
    package let stalePolicy: StalePolicy?
    /// The caller's: failures, and what the request log would have carried when there is none.
    package let logger: Logger
    /// Put before every target: the upstream's origin on a multi-host proxy, whose listeners
    /// serve the same paths for different hosts.
    package var targetPrefix = ""
    /// `session ID` for a session's requests, at the end of their lines.
    package var label: String?

    package init(requestLog: RequestLog?, stalePolicy: StalePolicy?, logger: Logger, label: String? = nil) {
        self.requestLog = requestLog
        self.stalePolicy = stalePolicy
        self.logger = logger
        self.label = label
    }

    /// The line of one answered request: method, target (redacted), status, duration, outcome,
    /// and what went wrong when something did. `shard`: the connection's event loop's buffer
    /// (0 off the loops). A `detail` is reported even when requests are not logged.
    package func answered(
        method: NIOHTTP1.HTTPMethod, target: String, status: String, outcome: String, started: NIODeadline, detail: String? = nil, shard: Int = 0
    ) {
        let target = targetPrefix.isEmpty || !target.hasPrefix("/") ? target : targetPrefix + target
        guard let requestLog else {
            if let detail { logger.notice("\(method.rawValue) \(target): \(detail)") }
            return
        }
        requestLog.log(shard: shard) { line in
            RequestLogLine.append(method: method, target: target, status: status, started: started, outcome: outcome, to: &line)
            if let detail { line.append(contentsOf: " (\(detail))".utf8) }
            if let label { line.append(contentsOf: " \(label)".utf8) }
        }
    }

    /// The warning for an answer from (or refusing) a stale recording; counted by the policy.
    package func stale(_ notice: String, method: NIOHTTP1.HTTPMethod, target: String, shard: Int = 0) {
        guard let stalePolicy else { return }
        let target = targetPrefix.isEmpty || !target.hasPrefix("/") ? target : targetPrefix + target
        warn(stalePolicy.report(method: method.rawValue, target: target, notice: notice), shard: shard)
    }

    /// A warning in line with the request log (which never blocks an event loop), or on stderr
    /// when requests are not logged.
    package func warn(_ line: String, shard: Int = 0) {
        if let requestLog {
            requestLog.log(shard: shard) { $0.append(contentsOf: line.utf8) }
        } else {
            logger.notice("\(line)")
        }
    }

    /// `line` ending with the listener's label (`session ID`), as its request lines end.
    package func labelled(_ line: String) -> String {
        label.map { "\(line) \($0)" } ?? line
    }

    /// A failure the user must see even when requests are not logged (a recording that failed).
    package func error(_ message: String) {
        logger.error("\(message)")
    }
}
