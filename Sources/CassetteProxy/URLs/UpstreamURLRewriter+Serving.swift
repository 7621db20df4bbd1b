import CassetteTools
import Foundation
import HTTPTypes
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// Where the rewriting applies: once per answer form. Answers built per request (`ProxyAnswer`:
/// recorded, passthrough, the responder's replays) are rewritten as they are written; the replay
/// hot path's answers when they are prepared at start-up.
extension UpstreamURLRewriter {
    /// The proxy's rewriter: `nil` when `--no-rewrite-urls` (or `rewriteURLs: false`) turned it
    /// off or no upstream is known.
    init?(settings: ProxySettings, upstream: URL?) {
        guard settings.rewritesUpstreamURLs, let upstream else { return nil }
        self.init(upstream: upstream, rewritesBodies: settings.rewritesBodyURLs)
    }

    /// `answer` as served to a client that reached the proxy at `proxyBase`. Only the upstream's
    /// answers: the proxy's own (errors, misses, endpoints) may name the upstream on purpose.
    /// `proxyBase` is worked out only for answers that can carry upstream URLs.
    func served(_ answer: ProxyAnswer, proxyBase base: @autoclosure () -> String) -> ProxyAnswer {
        switch answer.source {
        case .recorded, .replayed, .passthrough: break
        case .miss, .error, .endpoint: return answer
        }
        let proxyBase = base()
        var served = answer
        if let body = rewrittenBody(answer.body, fields: answer.headerFields, proxyBase: proxyBase) {
            served.body = Data(body)
            // A HEAD answer's length comes from this field: it describes the body as served.
            if served.headerFields[.contentLength] != nil { served.headerFields[.contentLength] = String(body.count) }
        }
        if let fields = rewritten(served.headerFields, proxyBase: proxyBase) { served.headerFields = fields }
        return served
    }

    /// The prepared answer of a recording whose headers (or JSON body, when bodies are rewritten)
    /// lead back to the upstream, rewritten for `preparedBase`; `nil` for the usual recording,
    /// which is prepared as it is. `body` is the recorded body as prepared.
    func prepared(_ interaction: Interaction, body: ByteBuffer?, preparedBase: String?, staleNotice: String?) -> PreparedResponse? {
        // The placeholder base only asks whether anything leads back.
        let base = preparedBase ?? "http://proxy.invalid"
        let fields = rewritten(interaction.responseHeaders, proxyBase: base)
        let servedBody = rewritesBodies ? body.flatMap { rewrittenBody($0.readableBytesView, fields: interaction.responseHeaders, proxyBase: base) } : nil
        guard fields != nil || servedBody != nil else { return nil }
        let recordedBody = body.map { Data(buffer: $0, byteTransferStrategy: .noCopy) } ?? Data()
        let original = ProxyAnswer(statusCode: interaction.statusCode, headerFields: interaction.responseHeaders, body: recordedBody, source: .replayed)
        guard let preparedBase else {
            // No fixed address to prepare for (a free port picked at bind): every request is
            // rewritten for the address its client used.
            return PreparedResponse(
                interaction, head: PreparedResponse.Head(interaction, bodyCount: recordedBody.count), body: body, staleNotice: staleNotice,
                upstreamURLs: PreparedUpstreamURLs(preparedBase: nil, original: original))
        }
        var served = interaction
        served.responseHeaders = fields ?? interaction.responseHeaders
        var servedBuffer = body
        if let servedBody {
            served.responseBody = Data(servedBody)
            servedBuffer = ByteBuffer(bytes: servedBody)
        }
        return PreparedResponse(
            served, head: PreparedResponse.Head(served, bodyCount: servedBuffer?.readableBytes ?? 0), body: servedBuffer, staleNotice: staleNotice,
            upstreamURLs: PreparedUpstreamURLs(preparedBase: preparedBase, original: original))
    }
}

/// What a prepared answer that leads back to the upstream needs for a client that reached the
/// proxy at another address than the one it was prepared for (`localhost` instead of
/// `127.0.0.1`): the recorded answer, rewritten per request like any `ProxyAnswer`.
final class PreparedUpstreamURLs: Sendable {
    /// The base the prepared head and body point at; `nil` when they were left as recorded.
    let preparedBase: String?
    let original: ProxyAnswer
    /// `original` has a header value that is not UTF-8 (`RawHeaderBytesHandler` restores it).
    let hasRawHeaderBytes: Bool

    init(preparedBase: String?, original: ProxyAnswer) {
        self.preparedBase = preparedBase
        self.original = original
        hasRawHeaderBytes = original.headerFields.contains(where: RawHeaderBytes.isRaw)
    }
}
