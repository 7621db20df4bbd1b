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

    /// One line per request: method, path (secrets redacted), status, duration, outcome.
    func log(head: HTTPRequestHead, statusCode: Int, source: ProxyAnswer.Source, started: NIODeadline) {
        guard let requestLog else { return }
        // Hundredths of a millisecond by integer arithmetic: String(format:) costs more than the lookup.
        let hundredths = (Int((NIODeadline.now() - started).nanoseconds) + 5_000) / 10_000
        let fraction = hundredths % 100
        let path = redactedTarget(head.uri)
        let status = Terminal.paint(String(statusCode), statusCode >= 500 ? .red : statusCode >= 400 ? .yellow : .green)
        let outcome: String
        switch source {
        case .replayed: outcome = Terminal.paint("replayed", .blue)
        case .recorded: outcome = Terminal.paint("recorded", .green)
        case .passthrough: outcome = Terminal.paint("passthrough", .yellow)
        case .miss: outcome = Terminal.paint("miss", .red)
        case .error: outcome = Terminal.paint("error", .red)
        case .endpoint: outcome = Terminal.paint("cassette", .dim)
        }
        requestLog.log("\(head.method.rawValue) \(path) \(status) \(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)ms \(outcome)")
    }

    private func redactedTarget(_ target: String) -> String {
        redactor.redact(target: target)
    }
}
