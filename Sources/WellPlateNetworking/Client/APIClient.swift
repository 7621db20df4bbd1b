import Foundation
import HTTPTypes
import Logging
import WellPlateCore

/// The live client: JSON over any `HTTPTransport` (`TransportChoice.defaultShared` by default), with status-to-error
/// mapping, retries of idempotent requests, and a 401 handled in one place: the credentials refreshed once and the
/// request sent again (``Configuration/refreshCredentials``), or the user reported unauthorized
/// (``Configuration/onUnauthorized``, `Notification.Name.userUnauthorized`).
public final class APIClient: APIClientProtocol {
    /// The client's settings; the defaults suit an app talking to a JSON API.
    public struct Configuration: Sendable {
        /// Per-attempt timeout.
        public var timeout: Duration = .seconds(30)
        /// Which requests are retried, how often and after how long.
        public var retryPolicy: RetryPolicy = .default
        /// Sent with every request unless the call passes the same header.
        public var defaultHeaders: [String: String] = [:]
        /// Asked before every attempt, so a refreshed token is picked up by the retry and by the
        /// request sent again after ``refreshCredentials``.
        public var authHeaderProvider: (@Sendable () async throws -> [String: String])?
        /// Asked to refresh the credentials when the server answers 401; `true` means it did.
        ///
        /// The request is then sent once more, whatever its method, with the headers
        /// ``authHeaderProvider`` gives now: it is the same request with new credentials, not a
        /// retry after a failure, so ``retryPolicy`` neither allows nor counts it. One request
        /// never causes a second refresh: a 401 to the request sent again is thrown (and reported
        /// as unauthorized once for that refresh).
        ///
        /// Requests that were sent with the same credentials share one refresh: a 401 that arrives
        /// while a refresh runs waits for it, and a 401 to a request sent before a refresh ended
        /// takes that refresh's outcome instead of starting another. The refresh runs in a task of
        /// its own, so cancelling the request that started it does not cancel it for the others.
        ///
        /// `false`, a thrown error or no closure at all count as a failed refresh: ``onUnauthorized``
        /// runs and `Notification.Name.userUnauthorized` is posted, once for the
        /// refresh, then every request it answered for throws its 401 as ``APIError`` (category
        /// ``APIError/Category/unauthorized``). The refresh may send its call through this client
        /// or another: a 401 to any request made inside the refresh is thrown to the refresh, and
        /// neither refreshed nor reported as unauthorized on its own.
        public var refreshCredentials: (@Sendable () async throws -> Bool)?
        /// Runs once when credentials are rejected for good: a refresh failed (or there is no
        /// ``refreshCredentials``), or the server rejected the refreshed credentials too. It runs
        /// before `Notification.Name.userUnauthorized` is posted and before the
        /// requests concerned throw, so it can sign the user out first.
        public var onUnauthorized: (@Sendable () async -> Void)?
        /// Follow 3xx responses to their target (the proxy never does; an app usually wants to).
        public var followRedirects: Bool = true
        /// Log every request and response through the client's `Logger`, secrets redacted.
        public var enableLogging: Bool = false
        /// Hides secrets in what is logged.
        public var redactor: Redactor = .default
        /// What the retry backoff sleeps on; tests pass a clock that records the waits instead.
        public var clock: any Clock<Duration> = ContinuousClock()

        /// The defaults: 30 s timeout, default retries, redirects followed, no logging.
        public init() {}

        /// The defaults, with the timeout and logging taken from `config` (the timeout clamped to at most a day).
        public init(config: AppConfig) {
            // Clamped rather than trusted: `AppConfig.validate` rejects out-of-range values, but a
            // configuration built in code may never have been validated.
            timeout = Seconds(clamping: config.apiTimeout).duration
            enableLogging = config.enableLogging
        }
    }

    /// A shared client over the default shared transport (libcurl where it exists), as the design documents use it.
    public static let shared = APIClient()

    /// The settings the client was made with.
    public let configuration: Configuration
    /// What the client sends requests through.
    public let transport: any HTTPTransport
    private let logger: Logger
    private let refresher: CredentialRefresher

    /// A client sending through `transport`, the default shared transport by default.
    public init(
        transport: any HTTPTransport = TransportChoice.defaultShared,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "WellPlateNetworking.APIClient")
    ) {
        self.transport = transport
        self.configuration = configuration
        self.logger = logger
        refresher = CredentialRefresher(refresh: configuration.refreshCredentials)
    }

    /// A client with the timeout and logging of `config`.
    public convenience init(
        config: AppConfig, transport: any HTTPTransport = TransportChoice.defaultShared, logger: Logger = Logger(label: "WellPlateNetworking.APIClient")
    ) {
        self.init(transport: transport, configuration: Configuration(config: config), logger: logger)
    }

    /// Sends a request (retrying as `configuration.retryPolicy` allows) and decodes its 2xx JSON body as `T`;
    /// other statuses throw `APIError.serverError`.
    public func request<T: Decodable>(
        url: URL,
        method: HTTPMethod,
        headers: [String: String]?,
        body: Data?,
        responseType: T.Type
    ) async throws -> T {
        let response = try await send(url: url, method: method, headers: headers, body: body)
        return try ResponseDecoding.decode(T.self, from: response)
    }

    /// Sends a request and ignores its body; non-2xx statuses throw `APIError.serverError`.
    public func requestVoid(url: URL, method: HTTPMethod, headers: [String: String]?, body: Data?) async throws {
        _ = try await send(url: url, method: method, headers: headers, body: body)
    }

    /// Sends a request and returns the raw 2xx response, for callers that need headers or a body
    /// that is not JSON. Non-2xx statuses throw `APIError.serverError`.
    public func send(url: URL, method: HTTPMethod, headers: [String: String]? = nil, body: Data? = nil) async throws -> TransportResponse {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw APIError.invalidURL
        }
        var request = TransportRequest(method: method, url: url, body: body, timeout: configuration.timeout, followRedirects: configuration.followRedirects)
        request.headerFields = try Self.headerFields(configuration.defaultHeaders, merging: headers ?? [:], hasBody: body != nil)
        return try await send(request)
    }

    /// The retry loop around one request, with one more attempt after a refresh of credentials
    /// (`Configuration.refreshCredentials`).
    public func send(_ baseRequest: TransportRequest) async throws -> TransportResponse {
        let policy = configuration.retryPolicy
        let retryable = policy.isRetryable(method: baseRequest.method, headerFields: baseRequest.headerFields)
        var retry = 0
        // The episode of the refresh this request was sent again after, once it was.
        var refreshedIn: Int?
        while true {
            try Task.checkCancellation()
            var request = baseRequest
            let credentials = refresher.episode
            if let provider = configuration.authHeaderProvider {
                for (name, value) in try await provider() {
                    guard let fieldName = HTTPField.Name(name) else { throw Self.invalidHeader(name) }
                    request.headerFields[fieldName] = value
                }
            }
            logRequest(request, attempt: retry, afterRefresh: refreshedIn != nil)
            let response: TransportResponse
            do {
                response = try await transport.send(request)
            } catch let error as TransportError {
                logFailure(request, error)
                if retryable, error.isTransient, retry < policy.maxRetries, let delay = policy.delay(beforeRetry: retry + 1, retryAfter: nil) {
                    retry += 1
                    try await wait(delay)
                    continue
                }
                throw APIError.networkError(error)
            }
            logResponse(request, response)
            if response.isSuccess { return response }
            if response.statusCode == 401, !CredentialRefresher.refreshing {
                if let refreshedIn {
                    await refresher.rejectedAfterRefresh(of: refreshedIn) { await self.credentialsRejectedForGood() }
                } else {
                    let decision = await refresher.credentialsRejected(sentIn: credentials) { await self.credentialsRejectedForGood() }
                    if decision.sendAgain {
                        refreshedIn = decision.episode
                        continue
                    }
                }
            }
            if retryable, policy.retryableStatusCodes.contains(response.statusCode), retry < policy.maxRetries {
                let retryAfter = response.headerFields[.retryAfter].flatMap { RetryPolicy.parseRetryAfter($0) }
                if let delay = policy.delay(beforeRetry: retry + 1, retryAfter: retryAfter) {
                    retry += 1
                    try await wait(delay)
                    continue
                }
            }
            throw APIError.serverError(statusCode: response.statusCode, message: ResponseDecoding.errorMessage(in: response))
        }
    }

    /// The unauthorized handling the rulebook puts in one place: the app's hook, then the
    /// notification its root listens for.
    private func credentialsRejectedForGood() async {
        if let onUnauthorized = configuration.onUnauthorized { await onUnauthorized() }
        NotificationCenter.default.post(name: .userUnauthorized, object: self)
    }

    private func wait(_ delay: Duration) async throws {
        if configuration.retryPolicy.waitsBetweenAttempts {
            try await configuration.clock.sleep(for: delay)
        } else {
            try Task.checkCancellation()
        }
    }

    // MARK: Headers

    static func headerFields(_ defaults: [String: String], merging overrides: [String: String], hasBody: Bool) throws -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in defaults.merging(overrides, uniquingKeysWith: { _, override in override }).sorted(by: { $0.key < $1.key }) {
            guard let fieldName = HTTPField.Name(name) else { throw invalidHeader(name) }
            guard HTTPField.isValidValue(value) else {
                throw APIError.networkError(
                    TransportError(
                        .invalidRequest, "the value of header \"\(name)\" contains characters that cannot be sent (line breaks or control characters)"))
            }
            fields[fieldName] = value
        }
        if fields[.accept] == nil { fields[.accept] = "application/json" }
        if hasBody, fields[.contentType] == nil { fields[.contentType] = "application/json" }
        return fields
    }

    private static func invalidHeader(_ name: String) -> APIError {
        APIError.networkError(TransportError(.invalidRequest, "\"\(name)\" is not a valid header name (use letters, digits and -)"))
    }

    // MARK: Logging

    private func logRequest(_ request: TransportRequest, attempt: Int, afterRefresh: Bool) {
        guard configuration.enableLogging else { return }
        let redactor = configuration.redactor
        var metadata: Logger.Metadata = ["headers": .string(Self.describe(redactor.redact(headers: request.headerFields)))]
        if attempt > 0 { metadata["retry"] = .stringConvertible(attempt) }
        if afterRefresh { metadata["credentials"] = "refreshed" }
        logger.info("→ \(request.method.rawValue) \(redactor.redact(url: request.url))", metadata: metadata)
    }

    private func logResponse(_ request: TransportRequest, _ response: TransportResponse) {
        guard configuration.enableLogging else { return }
        let milliseconds = Double(response.duration.components.attoseconds) / 1e15 + Double(response.duration.components.seconds) * 1000
        logger.info(
            "← \(response.statusCode) \(request.method.rawValue) \(configuration.redactor.redact(url: request.url))",
            metadata: [
                "duration_ms": .string(String(format: "%.1f", milliseconds)),
                "bytes": .stringConvertible(response.body.count),
                "headers": .string(Self.describe(configuration.redactor.redact(headers: response.headerFields))),
            ]
        )
    }

    private func logFailure(_ request: TransportRequest, _ error: TransportError) {
        guard configuration.enableLogging else { return }
        logger.warning("✕ \(request.method.rawValue) \(configuration.redactor.redact(url: request.url)): \(error.message)")
    }

    private static func describe(_ fields: HTTPFields) -> String {
        fields.map { "\($0.name.rawName): \($0.value)" }.joined(separator: ", ")
    }
}
