import Foundation
import HTTPTypes
import NIOCore
import WellPlateCore

/// What the proxy sends back for one request, and how it came about: the one answer type every
/// path produces (replay, record, passthrough, errors, the proxy's own endpoints) and the one
/// writer (`AnswerWriter`) sends.
package struct ProxyAnswer: Sendable {
    /// The word in the request log line and the `X-Cassette` header's value.
    package enum Source: String, Sendable {
        case replayed
        case recorded
        case passthrough
        case miss
        /// Refused because its only recording is older than `--max-age` (`--stale fail`).
        case stale
        case error
        /// The proxy's own `/__cassette/` endpoints.
        case endpoint

        package var headerValue: String {
            switch self {
            case .endpoint: "endpoint"
            case .replayed: "hit"
            case .recorded: "recorded"
            case .passthrough: "passthrough"
            case .miss: "miss"
            case .stale: "stale"
            case .error: "error"
            }
        }
    }

    /// The status line and headers.
    package enum Head: Sendable {
        /// Made for this answer: the writer frames them for the body it sends.
        case fields(statusCode: Int, HTTPFields)
        /// Made once for a recording (`PreparedHead`), framing and `X-Cassette` included.
        case prepared(PreparedHead)
    }

    package enum Body: Sendable {
        /// Whole, in memory.
        case bytes(Data)
        /// A replayed body prepared once (`nil`: none), shared rather than copied by every write.
        case buffer(ByteBuffer?)
        /// A streamed recording, replayed in its recorded pieces, each due its offset after the head.
        case pieces(ByteBuffer, [ReplayPiece])
        /// A forwarded answer, written as the upstream sends it. Boxed: the exchange is a few
        /// hundred bytes, which every answer (most of them replayed) would otherwise carry and copy.
        indirect case stream(StreamingExchange)
    }

    package var head: Head
    package var body: Body
    package var source: Source
    /// Held back this long before the head is sent (replay latency).
    package var delay: Duration = .zero
    /// Set when the answer comes from (or refuses) a recording older than `--max-age`: the
    /// warning's detail, printed when the answer is sent.
    package var staleNotice: String?
    /// Sent chunked on HTTP/1.1 (without `Content-Length`), because the recording was streamed
    /// without one; any other replay keeps the length, which clients size downloads and progress
    /// bars from.
    package var chunkedAsRecorded = false
    /// Set on a replayed answer that leads back to the upstream (`UpstreamURLRewriter`): the
    /// recorded answer, for a client that reached the proxy at another address than the one the
    /// answer was made for.
    package var upstreamURLs: (any AddressBoundAnswer)?
    /// Set on a miss answer: what was asked and what came nearest, for a session's journal.
    package var miss: ReportedMiss?

    package init(head: Head, body: Body, source: Source, delay: Duration = .zero) {
        self.head = head
        self.body = body
        self.source = source
        self.delay = delay
    }

    package init(statusCode: Int, headerFields: HTTPFields, body: Data, source: Source, delay: Duration = .zero) {
        self.init(head: .fields(statusCode: statusCode, headerFields), body: .bytes(body), source: source, delay: delay)
    }

    package init(_ response: TransportResponse, source: Source) {
        self.init(statusCode: response.statusCode, headerFields: response.headerFields, body: response.body, source: source)
    }

    package var statusCode: Int {
        switch head {
        case .fields(let statusCode, _): statusCode
        case .prepared(let head): Int(head.status.code)
        }
    }

    /// A JSON answer the proxy itself produced (errors, misses, its own endpoints).
    package static func json(_ status: Int, _ value: JSONValue, source: Source) -> ProxyAnswer {
        var fields = HTTPFields()
        fields[.contentType] = "application/json; charset=utf-8"
        return ProxyAnswer(statusCode: status, headerFields: fields, body: Data((value.compactJSON + "\n").utf8), source: source)
    }

    /// The proxy's own error: `{"error": code, "message": message}`, one shape for every failure.
    package static func error(_ status: Int, code: String, message: String, source: Source = .error) -> ProxyAnswer {
        .json(status, ["error": .string(code), "message": .string(message)], source: source)
    }
}

/// One piece of a streamed recording: its bytes within the body, and when it is due after the head.
package struct ReplayPiece: Sendable {
    package var offset: Duration
    package var bytes: Range<Int>

    package init(offset: Duration, bytes: Range<Int>) {
        self.offset = offset
        self.bytes = bytes
    }
}
