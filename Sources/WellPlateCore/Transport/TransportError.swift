import Foundation

/// A request that produced no HTTP response: the kind of failure, a message for people and the
/// libcurl code behind it. `kind` is a plain enum: a switch over it needs a `default` to keep
/// compiling when a kind is added.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure; new ones may be added.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The request did not finish within its timeout.
        case timeout
        /// Nothing accepted the connection (refused, unreachable, no route).
        case cannotConnect
        /// The host name did not resolve.
        case dnsFailure
        /// The TLS handshake or certificate check failed.
        case tls
        /// The connection broke before a complete response arrived.
        case connectionLost
        /// The URL cannot be sent (malformed, unsupported scheme).
        case invalidURL
        /// The request cannot be sent as given (a header name or value, or no upstream to send to).
        case invalidRequest
        /// The response was larger than the configured limit.
        case responseTooLarge
        /// Following redirects was asked for and the chain exceeded the limit.
        case tooManyRedirects
        /// The transport was shut down before the request finished.
        case shutdown
        /// Anything else (libcurl out of memory, an unexpected libcurl error: `curlCode` says which).
        case other
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
        switch kind {
        case .timeout, .cannotConnect, .connectionLost: true
        default: false
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
