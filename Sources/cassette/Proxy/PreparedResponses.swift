import HTTPTypes
import NIOCore
import NIOHTTP1
import WellPlateNetworking

/// A replayed response in the form NIO writes: built once when the proxy starts, so a hit costs
/// neither a header conversion nor a body copy (the buffer is shared, not copied, per write).
/// A class, so handing one from the index to the event loop is a single reference count.
final class PreparedResponse: Sendable {
    let status: HTTPResponseStatus
    /// Includes `Content-Length` and `X-Cassette: hit`.
    let headers: HTTPHeaders
    let body: ByteBuffer?
    let duration: Duration
    /// The status as the request log prints it (coloured on a terminal).
    let logStatus: String

    init(_ interaction: Interaction) {
        var headers = ResponseHeaders.make(from: interaction.responseHeaders, bodyCount: interaction.responseBody.count, requestMethod: .GET, statusCode: interaction.statusCode)
        headers.add(name: "X-Cassette", value: ProxyAnswer.Source.replayed.headerValue)
        let hasBody = !interaction.responseBody.isEmpty && ResponseHeaders.mayHaveBody(statusCode: interaction.statusCode)
        status = HTTPResponseStatus(statusCode: interaction.statusCode)
        self.headers = headers
        body = hasBody ? ByteBuffer(bytes: interaction.responseBody) : nil
        duration = interaction.duration
        logStatus = RequestLogLine.status(interaction.statusCode)
    }
}

/// Prepared responses of every recording loaded at start-up, by row id. Read-only after start,
/// so event loops share it without a lock. Recordings made later are answered the slow way.
struct PreparedResponses: Sendable {
    private let byID: [Int64: PreparedResponse]

    init(_ interactions: [Interaction]) {
        var byID: [Int64: PreparedResponse] = [:]
        byID.reserveCapacity(interactions.count)
        for interaction in interactions {
            guard let id = interaction.id else { continue }
            byID[id] = PreparedResponse(interaction)
        }
        self.byID = byID
    }

    static let empty = PreparedResponses([])

    func response(id: Int64) -> PreparedResponse? {
        byID[id]
    }

    /// The prepared form of `interaction`, built now if it was not loaded at start-up.
    func response(for interaction: Interaction) -> PreparedResponse {
        interaction.id.flatMap { byID[$0] } ?? PreparedResponse(interaction)
    }
}
