import Foundation

/// A request that produced no HTTP response: the kind of failure, a message for people and the
/// libcurl code behind it. New kinds may be added, so a `switch` over `kind` needs a `default`.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure: a struct over a code, as async-http-client's `HTTPClientError` is, so that
    /// adding a kind does not break an app's `switch`. Compare with `==` or switch with a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kinds themselves. `package` rather than `private` (as `HTTPClientError`'s is): apps see only
        /// the static members, while the package's own mappings (`APIError.category`, URLError codes)
        /// switch over the code exhaustively, so the compiler names each of them when a kind is added.
        package enum Code: Sendable, Hashable, CaseIterable {
            case timeout, cannotConnect, dnsFailure, tls, connectionLost, invalidURL, invalidRequest
            case responseTooLarge, tooManyRedirects, shutdown, other
        }

        /// The code behind the kind.
        package let code: Code

        /// The kind with `code`.
        package init(_ code: Code) {
            self.code = code
        }

        /// The request did not finish within its timeout.
        public static let timeout = Kind(.timeout)
        /// Nothing accepted the connection (refused, unreachable, no route).
        public static let cannotConnect = Kind(.cannotConnect)
        /// The host name did not resolve.
        public static let dnsFailure = Kind(.dnsFailure)
        /// The TLS handshake or certificate check failed.
        public static let tls = Kind(.tls)
        /// The connection broke before a complete response arrived.
        public static let connectionLost = Kind(.connectionLost)
        /// The URL cannot be sent (malformed, unsupported scheme).
        public static let invalidURL = Kind(.invalidURL)
        /// The request cannot be sent as given (a header name or value, or no upstream to send to).
        public static let invalidRequest = Kind(.invalidRequest)
        /// The response was larger than the configured limit.
        public static let responseTooLarge = Kind(.responseTooLarge)
        /// Following redirects was asked for and the chain exceeded the limit.
        public static let tooManyRedirects = Kind(.tooManyRedirects)
        /// The transport was shut down before the request finished.
        public static let shutdown = Kind(.shutdown)
        /// Anything else (libcurl out of memory, an unexpected libcurl error: `curlCode` says which).
        public static let other = Kind(.other)

        /// The kind's name, as written in code; spelled out, since an app may build without the
        /// reflection metadata that `String(describing:)` of the code would need.
        public var description: String {
            switch code {
            case .timeout: "timeout"
            case .cannotConnect: "cannotConnect"
            case .dnsFailure: "dnsFailure"
            case .tls: "tls"
            case .connectionLost: "connectionLost"
            case .invalidURL: "invalidURL"
            case .invalidRequest: "invalidRequest"
            case .responseTooLarge: "responseTooLarge"
            case .tooManyRedirects: "tooManyRedirects"
            case .shutdown: "shutdown"
            case .other: "other"
            }
        }
    }

    /// What kind of failure it was.
    public var kind: Kind
    /// What failed, for people; never contains secrets (URLs are redacted before they get here).
    public var message: String
    /// The `CURLcode` (or `CURLMcode` for multi-handle failures) behind the error, when libcurl produced it.
    public var curlCode: Int?
    /// For `.tls` failures that can be told apart: which setting of `TLSConfiguration` may fix it.
    public var tlsProblem: TLSProblem?

    /// An error of `kind`; `message` must not contain secrets.
    public init(_ kind: Kind, _ message: String, curlCode: Int? = nil, tlsProblem: TLSProblem? = nil) {
        self.kind = kind
        self.message = message
        self.curlCode = curlCode
        self.tlsProblem = tlsProblem
    }

    /// Kinds where a new attempt may succeed: the server may have been briefly away.
    public var isTransient: Bool {
        switch kind.code {
        case .timeout, .cannotConnect, .connectionLost: true
        case .dnsFailure, .tls, .invalidURL, .invalidRequest, .responseTooLarge, .tooManyRedirects, .shutdown, .other: false
        }
    }

    /// The message, followed by the libcurl code when there is one.
    public var description: String {
        if let curlCode { return "\(message) (curl error \(curlCode))" }
        return message
    }
}

extension TransportError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}
