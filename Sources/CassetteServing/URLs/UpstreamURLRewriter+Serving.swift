import CassetteKernel
import Foundation
import HTTPTypes
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// Where the rewriting applies: answers made per request (recorded, passthrough) as they are
/// written; replayed answers when they are made (`ReplayAnswerMaker`).
extension UpstreamURLRewriter: AnswerRewriter {
    /// The proxy's rewriter: `nil` when `--no-rewrite-urls` (or `rewriteURLs: false`) turned it
    /// off or no upstream is known.
    package init?(settings: ProxySettings, upstream: URL?) {
        guard settings.rewritesUpstreamURLs, let upstream else { return nil }
        self.init(upstream: upstream, rewritesBodies: settings.rewritesBodyURLs)
    }

    /// `answer` as served to a client that reached the proxy at `proxyBase`. Only the upstream's
    /// answers made per request (whole, or streamed: headers only); the proxy's own (errors,
    /// misses, endpoints) may name the upstream on purpose, and replayed answers were rewritten
    /// when they were made (`prepared`). `proxyBase` is worked out only for answers that can
    /// carry upstream URLs.
    package func served(_ answer: ProxyAnswer, proxyBase base: @autoclosure () -> String) -> ProxyAnswer {
        switch answer.source {
        case .recorded, .replayed, .passthrough: break
        case .miss, .stale, .error, .endpoint: return answer
        }
        guard case .fields(let statusCode, var fields) = answer.head else { return answer }
        let proxyBase = base()
        var served = answer
        if case .bytes(let bytes) = answer.body, let body = rewrittenBody(bytes, fields: fields, proxyBase: proxyBase) {
            served.body = .bytes(Data(body))
            // A HEAD answer's length comes from this field: it describes the body as served.
            if fields[.contentLength] != nil { fields[.contentLength] = String(body.count) }
        }
        if let rewritten = rewritten(fields, proxyBase: proxyBase) { fields = rewritten }
        served.head = .fields(statusCode: statusCode, fields)
        return served
    }

    /// The answer replaying a recording whose headers (or JSON body, when bodies are rewritten)
    /// lead back to the upstream, rewritten for `preparedBase`; `nil` for the usual recording,
    /// which is answered as it is. `body` is the recorded body as prepared.
    package func prepared(_ interaction: Interaction, body: ByteBuffer?, preparedBase: String?) -> ProxyAnswer? {
        // The placeholder base only asks whether anything leads back (to any upstream).
        let base = preparedBase ?? "http://proxy.invalid"
        let rewriter = preparedBase == nil ? pointingAllAtOneBase : self
        let fields = rewriter.rewritten(interaction.responseHeaders, proxyBase: base)
        let servedBody =
            rewritesBodies ? body.flatMap { rewriter.rewrittenBody($0.readableBytesView, fields: interaction.responseHeaders, proxyBase: base) } : nil
        guard fields != nil || servedBody != nil else { return nil }
        let recordedBody = body.map { Data(buffer: $0, byteTransferStrategy: .noCopy) } ?? Data()
        let original = ProxyAnswer(statusCode: interaction.statusCode, headerFields: interaction.responseHeaders, body: recordedBody, source: .replayed)
        var answer: ProxyAnswer
        if let preparedBase {
            var served = interaction
            served.responseHeaders = fields ?? interaction.responseHeaders
            let servedBuffer = servedBody.map { ByteBuffer(bytes: $0) } ?? body
            answer = Self.answer(served, body: servedBuffer)
            answer.upstreamURLs = PreparedUpstreamURLs(preparedBase: preparedBase, original: original)
        } else {
            // No fixed address to make it for (a free port picked at bind): every request is
            // rewritten for the address its client used.
            answer = Self.answer(interaction, body: body)
            answer.upstreamURLs = PreparedUpstreamURLs(preparedBase: nil, original: original)
        }
        return answer
    }

    private static func answer(_ recording: Interaction, body: ByteBuffer?) -> ProxyAnswer {
        let sendsBody = recording.method != .head && HTTPFraming.statusAllowsBody(recording.statusCode)
        return ProxyAnswer(
            head: .prepared(PreparedHead(recording, bodyCount: body?.readableBytes ?? 0)), body: .buffer(sendsBody ? body : nil), source: .replayed)
    }
}

/// What a prepared answer that leads back to the upstream needs for a client that reached the
/// proxy at another address than the one it was prepared for (`localhost` instead of
/// `127.0.0.1`): the recorded answer, rewritten per request like any `ProxyAnswer`.
package final class PreparedUpstreamURLs: AddressBoundAnswer {
    /// The base the prepared head and body point at; `nil` when they were left as recorded.
    package let preparedBase: String?
    package let original: ProxyAnswer
    /// `original` has a header value that is not UTF-8 (`RawHeaderBytesHandler` restores it).
    package let hasRawHeaderBytes: Bool

    package init(preparedBase: String?, original: ProxyAnswer) {
        self.preparedBase = preparedBase
        self.original = original
        if case .fields(_, let fields) = original.head {
            hasRawHeaderBytes = fields.contains(where: RawHeaderBytes.isRaw)
        } else {
            hasRawHeaderBytes = false
        }
    }
}
