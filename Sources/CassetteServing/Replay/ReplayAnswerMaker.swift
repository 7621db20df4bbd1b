import CassetteKernel
import Foundation
import NIOCore
import WellPlateCore
import WellPlateNetworking

/// The one place a recording becomes an answer, whichever path replays it (prepared at start-up
/// for a replay-only proxy, or per request when recording): the stale policy, URLs that lead back
/// to the upstream, the replay latency, and a streamed recording's pieces are all decided here.
package struct ReplayAnswerMaker: Sendable {
    package let stale: StalePolicy?
    package let missStatus: Int
    package let latency: ProxySettings.Latency
    package let upstreamURLs: UpstreamURLRewriter?
    /// The proxy's address answers that lead back to the upstream are made for, when it is fixed
    /// (`nil`: rewritten per request, for the address each client used).
    package let preparedBase: String?

    package init(settings: ProxySettings, upstreamURLs: UpstreamURLRewriter?, preparedBase: String? = nil) {
        stale = settings.stalePolicy
        missStatus = settings.missStatus
        latency = settings.latency
        self.upstreamURLs = upstreamURLs
        self.preparedBase = preparedBase
    }

    /// The answer replaying `recording`. `head`: one already made for it (shared between equal
    /// recordings); `body`: its body as a buffer, or `nil` when it has none.
    package func answer(_ recording: Interaction, head: PreparedHead? = nil, body: ByteBuffer?) -> ProxyAnswer {
        var staleNotice: String?
        if let stale, stale.isStale(recording) {
            let notice = stale.notice(for: recording)
            guard !stale.fails else { return refusal(recording, notice: notice) }
            staleNotice = notice
        }
        var answer: ProxyAnswer
        if let rewritten = upstreamURLs?.prepared(recording, body: body, preparedBase: preparedBase) {
            answer = rewritten
            answer.delay = delay(recorded: recording.duration)
        } else {
            // A HEAD recording, and a status that never carries a body, send none.
            let sendsBody = recording.method != .head && HTTPFraming.statusAllowsBody(recording.statusCode)
            let head = head ?? PreparedHead(recording, bodyCount: body?.readableBytes ?? 0)
            answer = ProxyAnswer(head: .prepared(head), body: .buffer(sendsBody ? body : nil), source: .replayed, delay: delay(recorded: recording.duration))
            if sendsBody, let body, let chunks = recording.chunks {
                streamed(&answer, body: body, chunks: chunks, duration: recording.duration)
            }
        }
        addressBound(&answer, recording: recording, body: body)
        answer.staleNotice = staleNotice
        // Streamed recordings are stored without a length only when the client got none.
        answer.chunkedAsRecorded = recording.chunks != nil && recording.responseHeaders[.contentLength] == nil
        return answer
    }

    /// The replay latency for a recording that took `recorded`.
    package func delay(recorded: Duration) -> Duration {
        switch latency {
        case .none: .zero
        case .recorded: recorded
        case .fixed(let fixed): fixed
        }
    }

    /// A streamed recording goes out in its recorded pieces; with `--latency recorded` the head
    /// waits the recorded time to the head and each piece its recorded offset. It is framed as it
    /// was recorded: with its `Content-Length` when it had one, chunked otherwise.
    private func streamed(_ answer: inout ProxyAnswer, body: ByteBuffer, chunks: [ResponseChunk], duration: Duration) {
        var pieces = ResponseChunk.pieces(ofBodyCount: body.readableBytes, by: chunks).map { ReplayPiece(offset: $0.offset, bytes: $0.bytes) }
        if latency == .recorded {
            answer.delay = max(.zero, duration - (pieces.last?.offset ?? .zero))
        } else {
            for index in pieces.indices { pieces[index].offset = .zero }
        }
        answer.body = .pieces(body, pieces)
    }

    /// `--stale fail`: a recording older than the cutoff is refused like a miss, with the warning.
    private func refusal(_ recording: Interaction, notice: String) -> ProxyAnswer {
        var answer = ProxyAnswer.json(missStatus, stale!.refusal(for: recording), source: .stale)
        answer.staleNotice = notice
        return answer
    }
}
