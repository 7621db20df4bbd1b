import NIOHPACK
import NIOHTTP1
import WellPlateCore

/// A replayed answer's status line and headers in the form NIO writes, built once per recording
/// (and shared by recordings with equal headers, status and body length), so a hit costs no
/// header conversion.
package final class PreparedHead: Sendable {
    package let status: HTTPResponseStatus
    /// Includes `Content-Length` (for a HEAD recording, the one recorded) and `X-Cassette`.
    package let headers: HTTPHeaders
    /// The response head for an HTTP/1.1 keep-alive request, which needs no change per request.
    package let keepAliveHead: HTTPResponseHead
    /// The same head as an HTTP/2 HEADERS frame carries it (`:status`, names lowercased, no
    /// connection headers), as `HTTP2FramePayloadToHTTP1ServerCodec` would convert it per request.
    package let http2Headers: HPACKHeaders
    /// The status as the request log prints it (coloured on a terminal).
    package let logStatus: String
    /// A value carries bytes that are not UTF-8, which `RawHeaderBytesHandler` must restore.
    package let hasRawHeaderBytes: Bool

    package init(statusCode: Int, headers: HTTPHeaders) {
        status = HTTPResponseStatus(statusCode: statusCode)
        self.headers = headers
        hasRawHeaderBytes = headers.contains { RawHeaderBytes.isEscaped($0.value) }
        keepAliveHead = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        var withStatus = HTTPHeaders([(":status", String(statusCode))])
        withStatus.add(contentsOf: headers)
        http2Headers = HPACKHeaders(httpHeaders: withStatus, normalizeHTTPHeaders: true)
        logStatus = RequestLogLine.status(statusCode)
    }

    /// `recording`'s head for a body of `bodyCount` bytes.
    package convenience init(_ recording: Interaction, bodyCount: Int, source: ProxyAnswer.Source = .replayed) {
        let method: NIOHTTP1.HTTPMethod = recording.method == .head ? .HEAD : .GET
        var headers = ResponseHeaders.make(from: recording.responseHeaders, bodyCount: bodyCount, requestMethod: method, statusCode: recording.statusCode)
        headers.add(name: ControlNames.answerHeader, value: source.headerValue)
        self.init(statusCode: recording.statusCode, headers: headers)
    }
}
