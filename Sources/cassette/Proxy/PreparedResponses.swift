import Foundation
import HTTPTypes
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import WellPlateNetworking

/// A replayed response in the form NIO writes: built once when the proxy starts, so a hit costs
/// neither a header conversion nor a body copy (the buffer is shared, not copied, per write).
/// A class, so handing one from the index to the event loop is a single reference count.
final class PreparedResponse: Sendable {
    let status: HTTPResponseStatus
    /// Includes `Content-Length` and `X-Cassette: hit`.
    let headers: HTTPHeaders
    /// The response head for an HTTP/1.1 keep-alive request, which needs no change per request.
    let keepAliveHead: HTTPResponseHead
    let body: ByteBuffer?
    let duration: Duration
    /// The status as the request log prints it (coloured on a terminal).
    let logStatus: String
    /// Set when the recording is older than `--max-age`: the warning's detail.
    let staleNotice: String?
    /// Set when the recording leads back to the upstream (`UpstreamURLRewriter`).
    let upstreamURLs: PreparedUpstreamURLs?
    /// A streamed recording's pieces (`ProxyHandler.replayStreamed`); `nil` for a whole body.
    let chunks: [ResponseChunk]?

    init(_ interaction: Interaction, headers: HTTPHeaders, body: ByteBuffer?, staleNotice: String? = nil, upstreamURLs: PreparedUpstreamURLs? = nil) {
        self.staleNotice = staleNotice
        self.upstreamURLs = upstreamURLs
        chunks = interaction.chunks
        status = HTTPResponseStatus(statusCode: interaction.statusCode)
        self.headers = headers
        keepAliveHead = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        self.body = body
        duration = interaction.duration
        logStatus = RequestLogLine.status(interaction.statusCode)
    }

    /// Prepared on its own: for a recording made after start-up.
    convenience init(_ interaction: Interaction) {
        let hasBody = !interaction.responseBody.isEmpty && ResponseHeaders.mayHaveBody(statusCode: interaction.statusCode)
        self.init(interaction, headers: Self.headers(for: interaction), body: hasBody ? ByteBuffer(bytes: interaction.responseBody) : nil)
    }

    static func headers(for interaction: Interaction) -> HTTPHeaders {
        var headers = ResponseHeaders.make(from: interaction.responseHeaders, bodyCount: interaction.responseBody.count, requestMethod: .GET, statusCode: interaction.statusCode)
        headers.add(name: "X-Cassette", value: ProxyAnswer.Source.replayed.headerValue)
        return headers
    }
}

/// Prepared responses of every recording loaded at start-up, by row id. Read-only after start,
/// so event loops share it without a lock. Recordings made later are answered the slow way.
struct PreparedResponses: Sendable {
    private let byID: [Int64: PreparedResponse]

    /// Prepares every recording of `index` and leaves the index holding views of the prepared
    /// bodies instead of its own copies, so each body is in memory once. Bodies share a few large
    /// buffers (`BodyArena`); header blocks are shared between recordings with the same headers,
    /// status and body length.
    /// With a `stale` policy, recordings older than its cutoff are prepared with their warning,
    /// or as a refusal (status `missStatus`) when the policy fails them. With `upstreamURLs`,
    /// recordings that lead back to the upstream are prepared rewritten for `preparedBase`.
    init(sharingBodiesOf index: ReplayIndex, stale: StalePolicy? = nil, missStatus: Int = 404, upstreamURLs: UpstreamURLRewriter? = nil, preparedBase: String? = nil) {
        var arena = BodyArena()
        var places: [Int64: BodyArena.Place] = [:]
        index.forEachInteraction { interaction in
            guard let id = interaction.id, Self.hasBody(interaction) else { return }
            places[id] = arena.store(interaction.responseBody)
        }
        var byID: [Int64: PreparedResponse] = [:]
        byID.reserveCapacity(places.count)
        var headerBlocks: [HeaderBlock: HTTPHeaders] = [:]
        index.shareResponseBodies { interaction in
            guard let id = interaction.id else { return interaction.responseBody }
            let body = places[id].map { arena.slice($0) }
            let block = HeaderBlock(fields: interaction.responseHeaders, bodyCount: interaction.responseBody.count, statusCode: interaction.statusCode)
            let headers = headerBlocks[block] ?? PreparedResponse.headers(for: interaction)
            headerBlocks[block] = headers
            let isStale = stale?.isStale(interaction) ?? false
            if let upstreamURLs, !(isStale && stale!.fails), let served = upstreamURLs.prepared(interaction, body: body, preparedBase: preparedBase, staleNotice: isStale ? stale!.notice(for: interaction) : nil) {
                byID[id] = served
            } else if let stale, stale.isStale(interaction) {
                byID[id] = Self.stale(interaction, policy: stale, missStatus: missStatus, headers: headers, body: body)
            } else {
                byID[id] = PreparedResponse(interaction, headers: headers, body: body)
            }
            return body.map { Data(buffer: $0, byteTransferStrategy: .noCopy) } ?? interaction.responseBody
        }
        self.byID = byID
    }

    private static func stale(_ interaction: Interaction, policy: StalePolicy, missStatus: Int, headers: HTTPHeaders, body: ByteBuffer?) -> PreparedResponse {
        let notice = policy.notice(for: interaction)
        guard policy.fails else { return PreparedResponse(interaction, headers: headers, body: body, staleNotice: notice) }
        var refusal = interaction
        refusal.statusCode = missStatus
        refusal.responseBody = Data((policy.refusal(for: interaction).compactJSON + "\n").utf8)
        refusal.responseHeaders = [.contentType: "application/json; charset=utf-8"]
        refusal.chunks = nil
        var refusalHeaders = ResponseHeaders.make(from: refusal.responseHeaders, bodyCount: refusal.responseBody.count, requestMethod: .GET, statusCode: missStatus)
        refusalHeaders.add(name: "X-Cassette", value: "stale")
        return PreparedResponse(refusal, headers: refusalHeaders, body: ByteBuffer(bytes: refusal.responseBody), staleNotice: notice)
    }

    private static func hasBody(_ interaction: Interaction) -> Bool {
        !interaction.responseBody.isEmpty && ResponseHeaders.mayHaveBody(statusCode: interaction.statusCode)
    }

    private init() {
        byID = [:]
    }

    static let empty = PreparedResponses()

    func response(id: Int64) -> PreparedResponse? {
        byID[id]
    }

    /// The prepared form of `interaction`, built now if it was not loaded at start-up.
    func response(for interaction: Interaction) -> PreparedResponse {
        interaction.id.flatMap { byID[$0] } ?? PreparedResponse(interaction)
    }

    private struct HeaderBlock: Hashable {
        let fields: HTTPFields
        let bodyCount: Int
        let statusCode: Int
    }
}
