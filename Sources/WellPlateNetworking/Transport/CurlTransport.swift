#if canImport(CCurl)
import Foundation
import WellPlateCore

/// The live transport: HTTP/1.1, and HTTP/2 where an HTTPS server offers it (or, for a request that
/// `prefersHTTP2`, a plain http:// server speaks it), over libcurl, with connection reuse across requests,
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
        /// Told what the transport learned that its user should know once (an upstream that
        /// speaks HTTP/1.1 only); the proxy logs it.
        package var notice: (@Sendable (String) -> Void)?

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
    private let h2c: H2CUpstreams

    /// What `init` loads and starts once: the transfer loop and the checked TLS files.
    private struct Started: Sendable {
        let loop: CurlMultiLoop
        let tls: CurlTLS
    }

    /// - Throws: `TransportError` of kind `.tls` when a file named in `configuration.tls` is
    ///   missing or not PEM.
    public init(configuration: Configuration = Configuration()) throws(TransportError) {
        self.configuration = configuration
        h2c = H2CUpstreams(notice: configuration.notice)
        started = .success(try Self.start(configuration))
    }

    /// Never fails: a libcurl that cannot start is reported by `send`.
    init(rememberingStartupFailure configuration: Configuration) {
        self.configuration = configuration
        h2c = H2CUpstreams(notice: configuration.notice)
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
        return try await choosingVersion(for: request, started) { version in
            try await self.send(request, version: version, started)
        }
    }

    private func send(
        _ request: TransportRequest, version: CurlHTTPVersion, requestTarget: String? = nil, _ started: Started
    ) async throws
        -> TransportResponse
    {
        let loop = started.loop
        let transfer = CurlTransfer(request: request, displayURL: configuration.displayURL(request.url), limits: configuration, tls: started.tls)
        transfer.version = version
        transfer.requestTarget = requestTarget
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
    /// A request to an origin whose HTTP/2 support is still to be learned (`prefersHTTP2`) is
    /// sent when the head is first awaited instead.
    public func startStreaming(_ request: TransportRequest) throws -> PendingStream {
        let started = try self.started.get()
        guard let origin = H2CUpstreams.origin(of: request, proxy: configuration.proxy) else {
            return try startStreaming(request, version: .negotiated, started)
        }
        if h2c.support(of: origin) == .http1Only {
            // Unclaimed, the wrapper's closure lets go of `pending`, which stops its transfer.
            let pending = try startStreaming(request, version: .negotiated, started)
            return PendingStream {
                try await self.knownHTTP1(origin) { version in
                    version == .negotiated ? try await pending.response() : try await self.startStreaming(request, version: version, started).response()
                }
            }
        }
        guard h2c.support(of: origin) == .http2 else {
            return PendingStream {
                try await self.choosingVersion(for: request, started) { version in
                    try await self.startStreaming(request, version: version, started).response()
                }
            }
        }
        let first = try startStreaming(request, version: .priorKnowledge, started)
        return PendingStream {
            try await self.priorKnowledge(for: request, origin: origin) { version in
                version == .priorKnowledge ? try await first.response() : try await self.startStreaming(request, version: version, started).response()
            }
        }
    }

    private func startStreaming(_ request: TransportRequest, version: CurlHTTPVersion, _ started: Started) throws -> PendingStream {
        let loop = started.loop
        let transfer = CurlTransfer(request: request, displayURL: configuration.displayURL(request.url), limits: configuration, tls: started.tls)
        transfer.version = version
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

    // MARK: HTTP/2 with prior knowledge

    /// Runs `attempt` with the HTTP version `request` goes out with: prior knowledge to a plain
    /// http:// origin when the request prefers HTTP/2 and the origin is not known to speak HTTP/1.1
    /// only, HTTP/1.1 again for an idempotent request the origin turns out not to understand
    /// (`H2CUpstreams` says why only those).
    private func choosingVersion<Result>(
        for request: TransportRequest, _ started: Started, _ attempt: (CurlHTTPVersion) async throws -> Result
    ) async throws -> Result {
        guard let origin = H2CUpstreams.origin(of: request, proxy: configuration.proxy) else { return try await attempt(.negotiated) }
        var support = h2c.support(of: origin)
        if support == nil && !request.method.isIdempotent {
            await probe(origin, started)
            support = h2c.support(of: origin)
            // Neither answer came (the upstream is down, say): HTTP/1.1 fails no worse.
            if support == nil { return try await attempt(.negotiated) }
        }
        if support == .http1Only { return try await knownHTTP1(origin, attempt) }
        return try await priorKnowledge(for: request, origin: origin, attempt)
    }

    /// `attempt` over HTTP/1.1 to `origin`, known to speak HTTP/1.1 only. When the answer is an
    /// HTTP/2 frame (`H2CUpstreams.isHTTP2Answer`: the origin now speaks h2c only, and did not
    /// process the request), the request goes again at once with prior knowledge. Any other answer
    /// that shows the origin no longer speaks HTTP/1.1 (`isNotHTTP1Answer`) only forgets it, so
    /// that the next request tries prior knowledge: the server may have read this one.
    private func knownHTTP1<Result>(_ origin: String, _ attempt: (CurlHTTPVersion) async throws -> Result) async throws -> Result {
        do {
            return try await attempt(.negotiated)
        } catch  where H2CUpstreams.isHTTP2Answer(error) {
            h2c.forget(origin)
            let result = try await attempt(.priorKnowledge)
            h2c.learned(.http2, for: origin)
            return result
        } catch  where H2CUpstreams.isNotHTTP1Answer(error) {
            h2c.forget(origin)
            throw error
        }
    }

    /// `attempt` with prior knowledge, then over HTTP/1.1 when `origin` answered as an HTTP/1.1
    /// server and `request` is idempotent.
    private func priorKnowledge<Result>(
        for request: TransportRequest, origin: String, _ attempt: (CurlHTTPVersion) async throws -> Result
    ) async throws -> Result {
        do {
            let result = try await attempt(.priorKnowledge)
            h2c.learned(.http2, for: origin)
            return result
        } catch  where H2CUpstreams.isWrongProtocolAnswer(error) {
            h2c.learned(.http1Only, for: origin)
            guard request.method.isIdempotent else { throw error }
            return try await attempt(.negotiated)
        }
    }

    /// Learns whether `origin` speaks h2c from `OPTIONS *` with prior knowledge: any HTTP/2
    /// answer says it does, libcurl's answer to an HTTP/1.1 server that it does not.
    private func probe(_ origin: String, _ started: Started) async {
        guard let url = URL(string: origin + "/") else { return }
        do {
            _ = try await send(TransportRequest(method: .options, url: url), version: .priorKnowledge, requestTarget: "*", started)
            h2c.learned(.http2, for: origin)
        } catch  where H2CUpstreams.isWrongProtocolAnswer(error) {
            h2c.learned(.http1Only, for: origin)
        } catch {}
    }
}
#endif
