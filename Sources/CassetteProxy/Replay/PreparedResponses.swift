import CassetteTools
import Foundation
import HTTPTypes
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// A replayed response in the form NIO writes: built once when the proxy starts, so a hit costs
/// neither a header conversion nor a body copy (the buffer is shared, not copied, per write).
/// The one place a recording becomes an answer.
struct PreparedResponse: Sendable {
    /// Status line and headers, shared by recordings with equal headers, status and body length.
    final class Head: Sendable {
        let status: HTTPResponseStatus
        /// Includes `Content-Length` (for a HEAD recording, the one recorded) and `X-Cassette`.
        let headers: HTTPHeaders
        /// The response head for an HTTP/1.1 keep-alive request, which needs no change per request.
        let keepAliveHead: HTTPResponseHead
        /// The status as the request log prints it (coloured on a terminal).
        let logStatus: String
        /// A value carries bytes that are not UTF-8, which `RawHeaderBytesHandler` must restore.
        let hasRawHeaderBytes: Bool

        init(statusCode: Int, headers: HTTPHeaders) {
            status = HTTPResponseStatus(statusCode: statusCode)
            self.headers = headers
            hasRawHeaderBytes = headers.contains { RawHeaderBytes.isEscaped($0.value) }
            keepAliveHead = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
            logStatus = RequestLogLine.status(statusCode)
        }

        /// `recording`'s head for a body of `bodyCount` bytes.
        convenience init(_ recording: Interaction, bodyCount: Int, source: String = ProxyAnswer.Source.replayed.headerValue) {
            let method: NIOHTTP1.HTTPMethod = recording.method == .head ? .HEAD : .GET
            var headers = ResponseHeaders.make(from: recording.responseHeaders, bodyCount: bodyCount, requestMethod: method, statusCode: recording.statusCode)
            headers.add(name: "X-Cassette", value: source)
            self.init(statusCode: recording.statusCode, headers: headers)
        }
    }

    let head: Head
    let body: ByteBuffer?
    let duration: Duration
    /// Set when the recording is older than `--max-age`: the warning's detail.
    let staleNotice: String?
    /// Set when the recording leads back to the upstream (`UpstreamURLRewriter`).
    let upstreamURLs: PreparedUpstreamURLs?
    /// A streamed recording's pieces (`ProxyHandler.replayStreamed`); `nil` for a whole body.
    let chunks: [ResponseChunk]?

    var status: HTTPResponseStatus { head.status }
    var headers: HTTPHeaders { head.headers }
    var keepAliveHead: HTTPResponseHead { head.keepAliveHead }
    var logStatus: String { head.logStatus }

    /// `body`: the recording's body, or `nil` when it has none. A HEAD recording and a status
    /// that never carries a body send none.
    init(_ recording: Interaction, head: Head, body: ByteBuffer?, staleNotice: String? = nil, upstreamURLs: PreparedUpstreamURLs? = nil) {
        self.head = head
        self.body = Self.sendsBody(recording) ? body : nil
        duration = recording.duration
        self.staleNotice = staleNotice
        self.upstreamURLs = upstreamURLs
        chunks = recording.chunks
    }

    /// Prepared on its own: for a recording made after start-up.
    init(_ recording: Interaction) {
        self.init(
            recording, head: Head(recording, bodyCount: recording.responseBody.count),
            body: recording.responseBody.isEmpty ? nil : ByteBuffer(bytes: recording.responseBody))
    }

    /// With a `stale` policy, a recording older than its cutoff is prepared with its warning,
    /// or as a refusal (status `missStatus`) when the policy fails it.
    package static func stale(_ recording: Interaction, policy: StalePolicy, missStatus: Int, head: Head, body: ByteBuffer?) -> PreparedResponse {
        let notice = policy.notice(for: recording)
        guard policy.fails else { return PreparedResponse(recording, head: head, body: body, staleNotice: notice) }
        var refusal = recording
        refusal.statusCode = missStatus
        refusal.responseBody = Data((policy.refusal(for: recording).compactJSON + "\n").utf8)
        refusal.responseHeaders = [.contentType: "application/json; charset=utf-8"]
        refusal.chunks = nil
        let refusalHead = Head(refusal, bodyCount: refusal.responseBody.count, source: "stale")
        return PreparedResponse(refusal, head: refusalHead, body: ByteBuffer(bytes: refusal.responseBody), staleNotice: notice)
    }

    private static func sendsBody(_ recording: Interaction) -> Bool {
        recording.method != .head && HTTPFraming.statusAllowsBody(recording.statusCode)
    }
}

/// The answers of a replay-only proxy, at the replay index's positions (`ReplayIndex.Pick`):
/// built while the cassette loads and never changed, so event loops share them without a lock.
struct PreparedResponses: Sendable {
    private let answers: [PreparedResponse]
    /// Some answer (prepared, or as recorded for another address) has header bytes that are not
    /// UTF-8 (`RawHeaderBytesHandler`).
    let hasRawHeaderBytes: Bool

    init(_ answers: [PreparedResponse]) {
        self.answers = answers
        hasRawHeaderBytes = answers.contains { $0.head.hasRawHeaderBytes || $0.upstreamURLs?.hasRawHeaderBytes == true }
    }

    static let empty = PreparedResponses([])

    /// The answer for a lookup's pick; a recording made after start-up (never, for a replay-only
    /// proxy) is prepared now.
    func answer(for pick: ReplayIndex.Pick) -> PreparedResponse {
        switch pick {
        case .loaded(let position): answers[position]
        case .recorded(let recording): PreparedResponse(recording)
        }
    }
}

/// Prepares every recording while the cassette loads (`CassetteSession.open(...preparing:)`):
/// each body is copied once, from SQLite into a few large buffers (`BodyArena`), and the index
/// keeps views of those; heads are shared between recordings with the same response headers,
/// status and body length.
struct ResponsePreparer: ReplayAnswerPreparer, Sendable {
    private struct HeadKey: Hashable {
        let block: Int
        let bodyCount: Int
        let statusCode: Int
        let isHead: Bool
    }

    private var arena = BodyArena()
    /// By load number; `nil` for an empty body.
    private var places: [BodyArena.Place?] = []
    private var heads: [HeadKey: PreparedResponse.Head] = [:]
    private let stale: StalePolicy?
    private let missStatus: Int
    private let upstreamURLs: UpstreamURLRewriter?
    /// The proxy's address answers that lead back to the upstream are rewritten for, when fixed.
    private let preparedBase: String?

    init(stale: StalePolicy?, missStatus: Int, upstreamURLs: UpstreamURLRewriter? = nil, preparedBase: String? = nil) {
        self.stale = stale
        self.missStatus = missStatus
        self.upstreamURLs = upstreamURLs
        self.preparedBase = preparedBase
    }

    mutating func storeBody(_ bytes: UnsafeRawBufferPointer, number: Int) {
        precondition(number == places.count, "ResponsePreparer: bodies are stored in load order")
        places.append(bytes.isEmpty ? nil : arena.store(bytes))
    }

    mutating func prepare(_ recording: inout Interaction, number: Int, responseHeaderBlock: Int) -> PreparedResponse {
        let body = places[number].map { arena.slice($0) }
        recording.responseBody = body.map { Data(buffer: $0, byteTransferStrategy: .noCopy) } ?? Data()
        let key = HeadKey(
            block: responseHeaderBlock, bodyCount: recording.responseBody.count, statusCode: recording.statusCode, isHead: recording.method == .head)
        let head = heads[key] ?? PreparedResponse.Head(recording, bodyCount: key.bodyCount)
        heads[key] = head
        let staleNotice = stale.flatMap { $0.isStale(recording) ? $0.notice(for: recording) : nil }
        if let upstreamURLs, !(staleNotice != nil && stale!.fails),
            let served = upstreamURLs.prepared(recording, body: body, preparedBase: preparedBase, staleNotice: staleNotice)
        {
            return served
        }
        if let stale, staleNotice != nil {
            return .stale(recording, policy: stale, missStatus: missStatus, head: head, body: body)
        }
        return PreparedResponse(recording, head: head, body: body)
    }
}
