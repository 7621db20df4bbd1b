import Foundation
import HTTPTypes
import WellPlateCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The live transport over `URLSession` (FoundationNetworking on Linux): the default where libcurl
/// is absent (iOS, tvOS, watchOS, visionOS, and builds with `WELLPLATE_NO_CURL=1`), and a choice
/// everywhere (`AppConfig.transport`, or pass one to `APIClient`).
///
/// It offers what `CurlTransport` does wherever URLSession allows: the request's timeout (else
/// `Configuration.timeout`) bounds the whole exchange of `send` and each silence of a stream; the
/// same `TransportError` kinds; redirects followed only when the request asks; streamed bodies;
/// compressed bodies decoded with `decodedContentEncoding` set, as `TransportResponse` describes.
///
/// What URLSession cannot keep:
/// - Response header order and case: `HTTPURLResponse` hands headers over as a dictionary, so
///   they come back sorted by name, and repeated fields (two `Set-Cookie`) as one field joined
///   by commas. Recordings made through it differ from libcurl's in exactly that.
/// - Flow control of streamed bodies: a data task cannot be paused from a reader, so a slow
///   reader lets up to `maxResponseBodySize` bytes gather in memory.
/// - Request headers URLSession manages itself (`Host`, `Content-Length`, `Connection`) are its
///   own; it adds `Accept-Encoding` and `User-Agent` when the request has none.
/// - TLS: a custom CA (`TLSConfiguration.additionalCACertificatesPath`) and `insecure` work on
///   Apple platforms, through the session delegate's server-trust evaluation. FoundationNetworking
///   on Linux offers no trust evaluation, so there the initializer refuses TLS settings with a
///   `.tls` error instead of ignoring them. Client certificates need a keychain identity
///   (PKCS#12) that a PEM path cannot provide: refused on every platform; use `CurlTransport`.
public final class URLSessionTransport: StreamingHTTPTransport {
    /// Limits and settings for the transport; the defaults match `CurlTransport`'s.
    public struct Configuration: Sendable {
        /// Applies when a request does not set its own timeout.
        public var timeout: Duration = .seconds(30)
        /// Responses larger than this fail with `TransportError.Kind.responseTooLarge`.
        public var maxResponseBodySize: Int = 64 * 1024 * 1024
        /// Trusted CAs and verification for HTTPS (see the type's notes for what each platform supports).
        public var tls = TLSConfiguration()
        /// Rewrites a URL for messages, so that secrets in query strings never reach logs or errors.
        public var displayURL: @Sendable (URL) -> String = { Redactor.default.redact(url: $0) }

        /// The defaults: 30 s timeout, 64 MiB bodies, the system's trusted CAs.
        public init() {}
    }

    /// A process-wide transport with the default configuration.
    public static let shared = URLSessionTransport(defaults: Configuration())

    /// The settings the transport was started with.
    public let configuration: Configuration
    private let session: URLSession
    private let router: URLSessionTaskRouter

    /// - Throws: `TransportError` of kind `.tls` for TLS settings this platform's URLSession
    ///   cannot apply, and when the CA file is missing or not PEM.
    public init(configuration: Configuration = Configuration()) throws(TransportError) {
        let trust = try URLSessionTrust(configuration.tls)
        self.configuration = configuration
        router = URLSessionTaskRouter(trust: trust)
        session = Self.makeSession(router)
    }

    private init(defaults configuration: Configuration) {
        self.configuration = configuration
        router = URLSessionTaskRouter(trust: nil)
        session = Self.makeSession(router)
    }

    private static func makeSession(_ router: URLSessionTaskRouter) -> URLSession {
        let settings = URLSessionConfiguration.ephemeral
        // A transport, not a browser: no cookie jar, no cache, nothing kept between requests.
        settings.httpCookieAcceptPolicy = .never
        settings.httpShouldSetCookies = false
        settings.urlCache = nil
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: settings, delegate: router, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Sends `request` and returns the whole response; throws `TransportError` when no response
    /// arrived (`.timeout` once the request's timeout has passed) and `CancellationError` when the
    /// task was cancelled.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        let transfer = try start(request)
        let timeout = request.timeout ?? configuration.timeout
        // Weak: the timer must not keep a finished transfer (or the transport) alive until it fires.
        let deadline = Task { [weak transfer] in
            try await Task.sleep(for: timeout)
            transfer?.expire()
        }
        defer { deadline.cancel() }
        return try await withTaskCancellationHandler {
            let streamed = try await transfer.response()
            var response = try await streamed.collected()
            // The decoded body's length, as `TransportResponse` promises.
            if response.decodedContentEncoding != nil { response.headerFields[.contentLength] = String(response.body.count) }
            return response
        } onCancel: {
            transfer.cancel()
        }
    }

    /// Streams the response: returns once its head has arrived, the body follows chunk by chunk.
    /// The request's timeout (else `Configuration.timeout`) bounds each silence of the server.
    public func stream(_ request: TransportRequest) async throws -> StreamedResponse {
        try Task.checkCancellation()
        return try await startStreaming(request).response()
    }

    /// Starts the data task now; the head is awaited by `PendingStream.response()`.
    public func startStreaming(_ request: TransportRequest) throws -> PendingStream {
        let transfer = try start(request)
        return PendingStream(
            {
                try await withTaskCancellationHandler {
                    try await transfer.response()
                } onCancel: {
                    transfer.cancel()
                }
            }, abandon: { transfer.cancel() })
    }

    private func start(_ request: TransportRequest) throws(TransportError) -> URLSessionTransfer {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https", request.url.host != nil else {
            throw TransportError(.invalidURL, "\(configuration.displayURL(request.url)) is not an http or https URL")
        }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.timeoutInterval = (request.timeout ?? configuration.timeout).secondsValue
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        urlRequest.httpBody = request.body
        let task = session.dataTask(with: urlRequest)
        let transfer = URLSessionTransfer(
            task: task, followRedirects: request.followRedirects, maxBodySize: configuration.maxResponseBodySize,
            displayURL: configuration.displayURL(request.url))
        router.register(transfer, for: task)
        task.resume()
        return transfer
    }
}

extension Duration {
    /// Whole and fractional seconds, for Foundation's `TimeInterval`.
    fileprivate var secondsValue: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
