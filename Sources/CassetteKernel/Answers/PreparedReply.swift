import NIOCore
import WellPlateCore

/// A replayed answer that goes out as it was prepared at start-up: a prepared head, its body
/// bytes, no delay, no stale warning, no URLs to rewrite, not chunked. Nearly every recording's
/// answer is one; `AnswerWriter.send(_:head:target:started:shard:context:)` writes it to an
/// HTTP/1.1 keep-alive request without building anything per request.
package final class PreparedReply: Sendable {
    package let head: PreparedHead
    package let body: ByteBuffer?
    package let source: ProxyAnswer.Source
    /// Whether the status allows a body (RFC 9110 §6.4.1); a HEAD request never gets one.
    package let statusAllowsBody: Bool

    /// `nil` when `answer` needs more than its prepared bytes.
    package init?(_ answer: ProxyAnswer) {
        guard case .prepared(let head) = answer.head, case .buffer(let body) = answer.body, answer.delay == .zero, answer.staleNotice == nil,
            !answer.chunkedAsRecorded, answer.upstreamURLs == nil, answer.miss == nil
        else { return nil }
        self.head = head
        self.body = body
        source = answer.source
        statusAllowsBody = HTTPFraming.statusAllowsBody(Int(head.status.code))
    }
}
