import Foundation
import NIOCore
import NIOHTTP1
import WellPlateNetworking

/// What every connection of one proxy shares.
final class ProxyServerContext: Sendable {
    let configuration: ProxyConfiguration
    let responder: ProxyResponder
    let requestBuilder: ProxyRequestBuilder
    let endpoints: ProxyEndpoints
    let requestLog: RequestLog?
    let session: CassetteSession
    /// Filled only for replay-only proxies, whose answers never change after start-up.
    let prepared: PreparedResponses
    private let redactor: Redactor

    init(session: CassetteSession, configuration: ProxyConfiguration, modeName: String, requestLog: RequestLog?) {
        self.configuration = configuration
        let upstream = configuration.upstream ?? session.recordedUpstream
        responder = ProxyResponder(session: session, configuration: configuration, upstreamDescription: upstream.map { session.options.redactor.redact(url: $0) })
        requestBuilder = ProxyRequestBuilder(upstream: upstream)
        endpoints = ProxyEndpoints(session: session, modeName: modeName, started: .now)
        self.requestLog = requestLog
        self.session = session
        prepared = responder.answersSynchronously ? PreparedResponses(session.index.allInteractions) : .empty
        redactor = session.options.redactor
    }

    /// One line per request: method, path (secrets redacted), status, duration, outcome. Written
    /// straight into the log's buffer: this runs for every request on an event loop.
    func log(head: HTTPRequestHead, statusCode: Int, source: ProxyAnswer.Source, started: NIODeadline) {
        guard let requestLog else { return }
        // Hundredths of a millisecond by integer arithmetic: String(format:) costs more than the lookup.
        let hundredths = (Int((NIODeadline.now() - started).nanoseconds) + 5_000) / 10_000
        let fraction = hundredths % 100
        let target = redactedTarget(head.uri)
        let status = Terminal.useColor ? Terminal.paint(String(statusCode), statusCode >= 500 ? .red : statusCode >= 400 ? .yellow : .green) : String(statusCode)
        let outcome = Self.outcomeWords[source] ?? source.rawValue
        requestLog.log { line in
            line.append(contentsOf: head.method.rawValue.utf8)
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: target.utf8)
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: status.utf8)
            line.append(UInt8(ascii: " "))
            Self.appendDecimal(hundredths / 100, to: &line)
            line.append(UInt8(ascii: "."))
            if fraction < 10 { line.append(UInt8(ascii: "0")) }
            Self.appendDecimal(fraction, to: &line)
            line.append(contentsOf: "ms ".utf8)
            line.append(contentsOf: outcome.utf8)
        }
    }

    private static func appendDecimal(_ value: Int, to line: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, to: &line) }
        line.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    private static let outcomeWords: [ProxyAnswer.Source: String] = [
        .replayed: Terminal.paint("replayed", .blue),
        .recorded: Terminal.paint("recorded", .green),
        .passthrough: Terminal.paint("passthrough", .yellow),
        .miss: Terminal.paint("miss", .red),
        .error: Terminal.paint("error", .red),
        .endpoint: Terminal.paint("cassette", .dim),
    ]

    private func redactedTarget(_ target: String) -> String {
        redactor.redact(target: target)
    }
}
