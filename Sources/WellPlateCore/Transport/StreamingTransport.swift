import Foundation
import HTTPTypes
import Synchronization

/// A transport that hands a response over as it arrives: the status and headers first, then the
/// body chunk by chunk. For Server-Sent Events and long downloads, where waiting for the whole
/// response would delay the first byte or hold the body in memory.
public protocol StreamingHTTPTransport: HTTPTransport {
    /// Returns as soon as the status and headers have arrived; the body follows in `body`.
    /// Throws like `send` when no response head arrived.
    func stream(_ request: TransportRequest) async throws -> StreamedResponse

    /// Sends the request now and returns at once; `PendingStream.response()` waits for the head.
    /// For a caller that wants to wait somewhere else than where it sends (the recorder waits on
    /// the store's queue, so the answer goes from libcurl's thread straight to the one that stores
    /// it). Throws like `stream` when the request cannot be sent at all.
    func startStreaming(_ request: TransportRequest) throws -> PendingStream
}

extension StreamingHTTPTransport {
    /// Sends when the response is first awaited: for transports without a separate start.
    public func startStreaming(_ request: TransportRequest) throws -> PendingStream {
        PendingStream { try await self.stream(request) }
    }
}

/// A streamed request on its way (`StreamingHTTPTransport.startStreaming`). Dropping it without
/// calling `response()` aborts the transfer, so an answer nobody reads never holds a connection.
public struct PendingStream: Sendable {
    private final class Claim: Sendable {
        let response: @Sendable () async throws -> StreamedResponse
        let abandon: @Sendable () -> Void
        let claimed = Atomic(false)

        init(response: @escaping @Sendable () async throws -> StreamedResponse, abandon: @escaping @Sendable () -> Void) {
            self.response = response
            self.abandon = abandon
        }

        deinit {
            if !claimed.load(ordering: .acquiring) { abandon() }
        }
    }

    private let claim: Claim

    /// `response`: waits for the head; `abandon`: stops the transfer when `response` is never called.
    public init(_ response: @escaping @Sendable () async throws -> StreamedResponse, abandon: @escaping @Sendable () -> Void = {}) {
        claim = Claim(response: response, abandon: abandon)
    }

    /// Returns once the status and headers have arrived; call it once.
    public func response() async throws -> StreamedResponse {
        claim.claimed.store(true, ordering: .releasing)
        return try await claim.response()
    }
}

/// A response's status line and headers, before its body.
public struct TransportResponseHead: Sendable, Equatable {
    /// The HTTP status code.
    public var statusCode: Int
    /// As received, except that a decoded body loses `Content-Encoding` and `Content-Length`
    /// (its decoded length is not known until it ends).
    public var headerFields: HTTPFields
    /// The `Content-Encoding` the body has on the wire, when the transport decodes it.
    public var decodedContentEncoding: String?
    /// Where `Content-Encoding` stood among `headerFields` before it was removed.
    public var decodedContentEncodingPosition: Int?
    /// The `Content-Length` the upstream sent, of the encoded body when it is decoded: how large
    /// the transfer is, where `contentLength` is missing for decoded bodies.
    public var wireContentLength: Int?

    /// A head from its parts; `wireContentLength` defaults to the `Content-Length` in `headerFields`.
    public init(statusCode: Int, headerFields: HTTPFields = [:], decodedContentEncoding: String? = nil, wireContentLength: Int? = nil) {
        self.statusCode = statusCode
        self.headerFields = headerFields
        self.decodedContentEncoding = decodedContentEncoding
        self.wireContentLength = wireContentLength ?? headerFields[.contentLength].flatMap { Int($0) }
    }

    /// The announced body length, when the head has a valid `Content-Length`.
    public var contentLength: Int? {
        headerFields[.contentLength].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }
}

/// A response whose body is still arriving.
public struct StreamedResponse: Sendable {
    /// The status line and headers.
    public let head: TransportResponseHead
    /// The body, read in chunks as it arrives; read it once.
    public let body: TransportBodyStream
    /// When the head arrived: chunk offsets are measured from here.
    public let headReceived: ContinuousClock.Instant
    /// Time from sending the request to receiving the head.
    public let timeToHead: Duration

    /// A response from its head and its body stream, with the head arriving now unless given.
    public init(head: TransportResponseHead, body: TransportBodyStream, headReceived: ContinuousClock.Instant = .now, timeToHead: Duration = .zero) {
        self.head = head
        self.body = body
        self.headReceived = headReceived
        self.timeToHead = timeToHead
    }

    /// Reads the rest of the body and returns the whole response (`duration` up to its last byte).
    public func collected() async throws -> TransportResponse {
        var body = Data()
        if let length = head.contentLength { body.reserveCapacity(length) }
        for try await chunk in self.body {
            body.append(chunk)
        }
        var response = TransportResponse(
            statusCode: head.statusCode, headerFields: head.headerFields, body: body,
            decodedContentEncoding: head.decodedContentEncoding, duration: timeToHead + (ContinuousClock.now - headReceived))
        response.decodedContentEncodingPosition = head.decodedContentEncodingPosition
        return response
    }
}

/// The source behind a `TransportBodyStream`: a transport's own buffer.
package protocol TransportBodySource: Sendable {
    /// The next chunk, `nil` at the end; throws `TransportError` when the body broke off.
    func next() async throws -> Data?
    /// Stops the transfer if it is still running (the reader gave up).
    func abandon()
}

/// A response body's chunks in arrival order, for one reader. It ends normally once the body is
/// complete and throws a `TransportError` of kind `.connectionLost` (or `.timeout`) when the upstream
/// broke off mid-body. The transport holds only a bounded number of bytes ahead of the reader and
/// pauses the transfer beyond that, so a slow reader slows the upstream instead of filling memory.
/// Dropping the stream before its end aborts the transfer.
public final class TransportBodyStream: AsyncSequence, Sendable {
    /// Each element is one chunk of the body, in arrival order.
    public typealias Element = Data
    private let source: any TransportBodySource

    package init(source: any TransportBodySource) {
        self.source = source
    }

    /// A body that is already complete, delivered as the given chunks.
    public convenience init(chunks: [Data]) {
        self.init(source: FixedBodySource(chunks: chunks))
    }

    deinit {
        source.abandon()
    }

    /// An iterator over the body's chunks in arrival order.
    public func makeAsyncIterator() -> Iterator {
        Iterator(stream: self)
    }

    /// Reads the body's chunks in order.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let stream: TransportBodyStream

        /// The next chunk, or `nil` once the body is complete; throws `TransportError` when it broke off.
        public mutating func next() async throws -> Data? {
            try await stream.source.next()
        }
    }
}

/// Chunks known in advance.
private final class FixedBodySource: TransportBodySource {
    private let chunks: Mutex<[Data]>

    init(chunks: [Data]) {
        self.chunks = Mutex(chunks.reversed())
    }

    package func next() async throws -> Data? {
        chunks.withLock { $0.popLast() }
    }

    func abandon() {}
}
