import Foundation
import HTTPTypes

/// The seam between clients and the wire: the libcurl transport, the recording transport and the
/// replay transport all conform, so `APIClient`, `ReplayAPIClient` and the proxy share one model.
public protocol HTTPTransport: Sendable {
    /// Performs one exchange. Throws `TransportError` when no HTTP response arrived and
    /// `CancellationError` when the calling task was cancelled; any HTTP status is a response.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// One HTTP request as a transport sends it.
public struct TransportRequest: Sendable, Equatable {
    /// The request method.
    public var method: HTTPMethod
    /// The absolute URL to send the request to.
    public var url: URL
    /// The header fields to send.
    public var headerFields: HTTPFields
    /// The body to send; `nil` for none.
    public var body: Data?
    /// The whole exchange must finish within this time; `nil` uses the transport's default.
    public var timeout: Duration?
    /// Redirects are handed back to the caller unless this is set.
    public var followRedirects: Bool
    /// Speak HTTP/2 to a plain `http://` server too (h2c with prior knowledge), as a proxy does
    /// for a client that spoke HTTP/2; a server that turns out to speak only HTTP/1.1 gets the
    /// request over HTTP/1.1 instead. HTTPS servers are offered HTTP/2 through ALPN either way.
    /// Only the libcurl transport acts on it; URLSession chooses the version itself.
    public var prefersHTTP2 = false
    /// The HTTP version the proxy's client spoke, stored with a recording of it (for exports).
    package var httpVersion: RecordedHTTPVersion?

    /// A request; by default without headers or body, with the transport's timeout, and not following redirects.
    public init(
        method: HTTPMethod,
        url: URL,
        headerFields: HTTPFields = [:],
        body: Data? = nil,
        timeout: Duration? = nil,
        followRedirects: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.body = body
        self.timeout = timeout
        self.followRedirects = followRedirects
    }
}

/// One complete HTTP response: the body is always the decoded payload.
public struct TransportResponse: Sendable, Equatable {
    /// The HTTP status code.
    public var statusCode: Int
    /// Header fields as received, except that `Content-Encoding` is removed and `Content-Length`
    /// describes `body` once a compressed body has been decoded.
    public var headerFields: HTTPFields
    /// The decoded body; empty when the response had none.
    public var body: Data
    /// The `Content-Encoding` the body had on the wire (`gzip`, `deflate`) before it was decoded.
    public var decodedContentEncoding: String?
    /// Where `Content-Encoding` stood among `headerFields` before it was removed, so a recording
    /// can give the headers back in the order the server sent them (HAR export).
    public var decodedContentEncodingPosition: Int?
    /// Time from sending the request to receiving the last byte of the response.
    public var duration: Duration

    /// A response from its parts; `body` must already be decoded.
    public init(
        statusCode: Int,
        headerFields: HTTPFields = [:],
        body: Data = Data(),
        decodedContentEncoding: String? = nil,
        duration: Duration = .zero
    ) {
        self.statusCode = statusCode
        self.headerFields = headerFields
        self.body = body
        self.decodedContentEncoding = decodedContentEncoding
        self.duration = duration
    }

    /// Whether the status code is 2xx.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }
}
