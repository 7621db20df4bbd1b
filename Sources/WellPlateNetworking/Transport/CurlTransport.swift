#if canImport(CCurl)
import Foundation
import WellPlateCore

/// The live transport: HTTP/1.1, and HTTP/2 where an HTTPS server offers it, over libcurl, with connection reuse across requests,
/// transparent gzip/deflate decoding, and Swift task cancellation aborting the transfer.
public final class CurlTransport: StreamingHTTPTransport {
    /// Limits and settings for the transport; the defaults suit an app talking to one API.
    public struct Configuration: Sendable {
        /// Applies when a request does not set its own timeout.
        public var timeout: Duration = .seconds(30)
        /// Connecting must finish within this time (or the request timeout, if shorter).
        public var connectTimeout: Duration = .seconds(10)
        /// Connections kept open for reuse.
        public var maxConnections: Int = 64
        /// Responses larger than this fail with `TransportError.Kind.responseTooLarge`.
        public var maxResponseBodySize: Int = 64 * 1024 * 1024
        /// Bytes of a streamed body (`stream`) held ahead of a slow reader; beyond this the
        /// transfer pauses until the reader catches up.
        public var streamBufferSize: Int = 256 * 1024
        /// Ask for compressed responses and decode them; the original encoding is kept in
        /// `TransportResponse.decodedContentEncoding`.
        public var decodeContent: Bool = true
        /// Trusted CAs, client certificate and verification for HTTPS; checked when the transport starts.
        public var tls = TLSConfiguration()
        /// An explicit proxy URL. Proxy environment variables are ignored unless set here.
        public var proxy: String?
        /// Rewrites a URL for messages, so that secrets in query strings never reach logs or errors.
        public var displayURL: @Sendable (URL) -> String = { Redactor.default.redact(url: $0) }

        /// The defaults: 30 s timeout, 10 s to connect, compressed responses decoded, system CAs.
        public init() {}
    }

    /// A process-wide transport for callers that do not manage their own. It is created on first
    /// use, where no caller can catch an error; should libcurl fail to start, every `send` throws
    /// that failure as a `TransportError` instead of the process stopping.
    public static let shared = CurlTransport(rememberingStartupFailure: Configuration())

    /// The settings the transport was started with.
    public let configuration: Configuration
    private let started: Result<Started, TransportError>

    /// What `init` loads and starts once: the transfer loop and the checked TLS files.
    private struct Started: Sendable {
        let loop: CurlMultiLoop
        let tls: CurlTLS
    }

    /// - Throws: `TransportError` of kind `.tls` when a file named in `configuration.tls` is
    ///   missing or not PEM.
    public init(configuration: Configuration = Configuration()) throws(TransportError) {
        self.configuration = configuration
        started = .success(try Self.start(configuration))
    }

    /// Never fails: a libcurl that cannot start is reported by `send`.
    init(rememberingStartupFailure configuration: Configuration) {
        self.configuration = configuration
        do throws(TransportError) {
            started = .success(try Self.start(configuration))
        } catch {
            started = .failure(TransportError(error.kind, "libcurl could not start, so no request can be sent: \(error.message)", curlCode: error.curlCode))
        }
    }

    private static func start(_ configuration: Configuration) throws(TransportError) -> Started {
        // libcurl takes a negative cache size without complaint; it is a mistake all the same.
        guard configuration.maxConnections >= 0 else {
            throw TransportError(.invalidRequest, "maxConnections is \(configuration.maxConnections); it must be 0 or more")
        }
        let tls = try CurlTLS(configuration.tls)
        return Started(loop: try CurlMultiLoop(maxConnections: configuration.maxConnections), tls: tls)
    }

    deinit {
        if case .success(let started) = started { started.loop.shutdown() }
    }

    /// Sends `request` and returns the whole response; throws `TransportError` when no response arrived
    /// and `CancellationError` when the task was cancelled.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        let started = try self.started.get()
        let loop = started.loop
        let transfer = CurlTransfer(request: request, displayURL: configuration.displayURL(request.url), limits: configuration, tls: started.tls)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.continuation = continuation
                do {
                    if try !loop.submit(transfer) {
                        transfer.continuation = nil
                        continuation.resume(throwing: CancellationError())
                    }
                } catch {
                    transfer.continuation = nil
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            loop.cancel(transfer)
        }
    }

    /// Streams the response: returns once its head has arrived, the body follows chunk by chunk
    /// with at most `Configuration.streamBufferSize` bytes held ahead of the reader. The request's
    /// timeout (else `Configuration.timeout`) bounds each silence of the upstream rather than the
    /// whole transfer, in whole seconds over libcurl's 5 s rate window; it throws `.timeout`.
    public func stream(_ request: TransportRequest) async throws -> StreamedResponse {
        try Task.checkCancellation()
        return try await startStreaming(request).response()
    }

    /// Hands the transfer to libcurl's thread now; the head is awaited by `PendingStream.response()`.
    public func startStreaming(_ request: TransportRequest) throws -> PendingStream {
        let started = try self.started.get()
        let loop = started.loop
        let transfer = CurlTransfer(request: request, displayURL: configuration.displayURL(request.url), limits: configuration, tls: started.tls)
        // Weak: the transfer owns the sink; the loop keeps the transfer alive while it runs.
        let sink = CurlStreamSink(
            highWater: configuration.streamBufferSize,
            resume: { [weak transfer] in if let transfer { loop.resume(transfer) } },
            cancel: { [weak transfer] in if let transfer { loop.cancel(transfer) } })
        transfer.sink = sink
        let sent = ContinuousClock.now
        guard try loop.submit(transfer) else { throw CancellationError() }
        return PendingStream(
            {
                let head = try await withTaskCancellationHandler {
                    try await sink.head()
                } onCancel: {
                    loop.cancel(transfer)
                }
                let headReceived = ContinuousClock.now
                return StreamedResponse(head: head, body: TransportBodyStream(source: sink), headReceived: headReceived, timeToHead: headReceived - sent)
            }, abandon: { loop.cancel(transfer) })
    }
}
#endif
