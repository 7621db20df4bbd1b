import CassetteTools
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// What every connection of one proxy shares.
final class ProxyServerContext: Sendable {
    let settings: ProxySettings
    let responder: ProxyResponder
    let requestBuilder: ProxyRequestBuilder
    let endpoints: ProxyEndpoints
    let requestLog: RequestLog?
    let session: CassetteSession
    /// Filled only for replay-only proxies, whose answers never change after start-up.
    let prepared: PreparedResponses
    /// `responder.answersSynchronously`, read once: every request asks.
    let answersSynchronously: Bool
    /// `nil` when URL rewriting is off or no upstream is known.
    let upstreamURLs: UpstreamURLRewriter?
    /// Whether connections need `RawHeaderBytesHandler`: a replay-only proxy whose recordings'
    /// headers are all UTF-8 does without it (one handler fewer on every write).
    let restoresRawHeaderBytes: Bool
    /// Whether connections need `RequestHeadBytesHandler`: request header bytes matter only when
    /// they go upstream or could match a key. A replay-only proxy whose keys are all ASCII does
    /// without it (two handlers fewer on every request): a head that is not UTF-8 keys to the same
    /// recording there, or to none, whether its bytes are kept or read as U+FFFD.
    let keepsRequestHeadBytes: Bool
    private let redactor: Redactor
    /// Request headers that are part of keys (conditional ones, `matchHeaders`).
    private let keyedHeaderNames: [String]
    /// The secret and keyed header names together (`carriesKeyingHeaders`).
    private let keyingHeaderNames: [String]

    /// `prepared`: the answers of a replay-only proxy, made while its session opened.
    init(session: CassetteSession, prepared: PreparedResponses = .empty, settings: ProxySettings, modeName: String, requestLog: RequestLog?) {
        self.settings = settings
        let upstream = settings.upstream ?? session.recordedUpstream
        responder = ProxyResponder(session: session, settings: settings, upstreamDescription: upstream.map { session.options.redactor.redact(url: $0) })
        requestBuilder = ProxyRequestBuilder(upstream: upstream)
        let forwards = !settings.isReplayOnly(mode: session.options.mode)
        endpoints = ProxyEndpoints(session: session, modeName: modeName, started: .now, insecure: settings.tls.insecure && forwards)
        self.requestLog = requestLog
        self.session = session
        answersSynchronously = responder.answersSynchronously
        upstreamURLs = UpstreamURLRewriter(settings: settings, upstream: upstream)
        self.prepared = prepared
        redactor = session.options.redactor
        keyedHeaderNames = session.matchingRules.keyedHeaderNames
        keyingHeaderNames = Array(Set((keyedHeaderNames + (redactor.isEnabled ? Array(redactor.headerNames) : [])).map { $0.lowercased() }))
        restoresRawHeaderBytes = !answersSynchronously || prepared.hasRawHeaderBytes
        keepsRequestHeadBytes = !answersSynchronously || !session.index.loadedKeysAreASCII
    }

    /// One line per request: method, path (secrets redacted), status, duration, outcome.
    /// `shard`: the connection's event loop's request-log buffer (`ProxyHandler.logShard`).
    func log(head: HTTPRequestHead, statusCode: Int, source: ProxyAnswer.Source, started: NIODeadline, shard: Int = 0) {
        guard let requestLog else { return }
        let target = redactedTarget(head.uri, secretHeaders: secretHeaders(head))
        let status = RequestLogLine.status(statusCode)
        let outcome = RequestLogLine.outcome(source)
        requestLog.log(shard: shard) { line in
            RequestLogLine.append(method: head.method, target: target, status: status, started: started, outcome: outcome, to: &line)
        }
    }

    /// The replay hot path's line, from pieces prepared at start-up or cached per connection.
    func logReplayed(method: NIOHTTP1.HTTPMethod, redactedTarget: String, prepared: PreparedResponse, started: NIODeadline, shard: Int = 0) {
        if let notice = prepared.staleNotice, let policy = settings.stalePolicy {
            warn(policy.report(method: method.rawValue, target: redactedTarget, notice: notice), shard: shard)
        }
        guard let requestLog else { return }
        requestLog.log(shard: shard) { line in
            RequestLogLine.append(method: method, target: redactedTarget, status: prepared.logStatus, started: started, outcome: Self.replayedWord, to: &line)
        }
    }

    private static let replayedWord = RequestLogLine.outcome(.replayed)

    /// A warning in line with the request log (which never blocks an event loop), or on stderr
    /// when requests are not logged.
    func warn(_ line: String, shard: Int = 0) {
        if let requestLog {
            requestLog.log(shard: shard) { $0.append(contentsOf: line.utf8) }
        } else {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    /// Whether the request carries a header that changes how it is keyed or logged: a secret one
    /// (its value is scrubbed from the target) or a keyed one. Nearly every request carries none
    /// and is then keyed by method and target alone. One check for both, by NIO's ASCII
    /// case-insensitive compare: names that are not ASCII never get past the request parser.
    func carriesKeyingHeaders(_ head: HTTPRequestHead) -> Bool {
        keyingHeaderNames.contains(where: head.headers.contains(name:))
    }

    /// The request's keyed header fields (and its Content-Type), or `nil` when it carries none,
    /// which is nearly always: the replay hot path then keys by target alone.
    func keyedHeaders(of head: HTTPRequestHead) -> HTTPFields? {
        guard keyedHeaderNames.contains(where: head.headers.contains(name:)) else { return nil }
        var fields = HTTPFields()
        for name in keyedHeaderNames {
            guard let fieldName = HTTPField.Name(name) else { continue }
            for value in head.headers[name] { fields.append(RawHeaderBytes.field(name: fieldName, value: value)) }
        }
        if let contentType = head.headers.first(name: "content-type") { fields[.contentType] = contentType }
        return fields
    }

    func redactedTarget(_ target: String, secretHeaders: HTTPFields = [:]) -> String {
        secretHeaders.isEmpty ? redactor.redact(target: target) : session.redactedTarget(target, secretHeaders: secretHeaders)
    }

    /// The request's credential and cookie headers, whose values are scrubbed from its target
    /// and body; empty (without allocating) for the usual request that has none.
    func secretHeaders(_ head: HTTPRequestHead) -> HTTPFields {
        var fields = HTTPFields()
        for header in head.headers where redactor.isSecretHeader(header.name) {
            if let name = HTTPField.Name(header.name) { fields.append(RawHeaderBytes.field(name: name, value: header.value)) }
        }
        return fields
    }

    /// Whether the values of `secretHeaders` occur in the target, so that its key and log line
    /// differ from those of the same target sent without them.
    func secretsOccur(in target: String, secretHeaders: HTTPFields) -> Bool {
        guard !secretHeaders.isEmpty else { return false }
        let secrets = redactor.secretValues(headers: secretHeaders)
        return redactor.scrub(target: target, secrets: secrets) != target
    }
}
