import HTTPTypes

/// The HTTP framing rules, written once: which header fields belong to one connection rather than
/// to the message, and which answers never carry a body. The proxy, the store, the transports and
/// the drift check all apply them.
package enum HTTPFraming {
    /// Connection-specific fields (RFC 9110 §7.6.1, plus the legacy `Proxy-Connection`): they
    /// describe one hop and are never forwarded, stored or replayed. Lowercase.
    package static let hopByHopHeaders: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
    ]

    /// Fields a sender computes from the body it sends (its length), so a forwarder never copies them.
    package static let bodyLengthHeaders: Set<String> = ["content-length"]

    /// Request fields not forwarded upstream: the hop's own, the length and the expectation (the
    /// transport frames the body itself) and the host (the upstream's is used).
    /// `Proxy-Authorization` is not among them: a reverse proxy asked for no credentials, so the
    /// field is the upstream's (which may be a proxy itself); only a forward proxy, the client's
    /// configured proxy, is its addressee and drops it (`proxyCredentialHeaders`).
    package static let unforwardedRequestHeaders: Set<String> = hopByHopHeaders.union(bodyLengthHeaders).union(["host", "expect"])

    /// Credentials addressed to the client's configured proxy (RFC 9110 §11.7.2): a forward proxy
    /// consumes them and never passes them on. Lowercase.
    package static let proxyCredentialHeaders: Set<String> = ["proxy-authorization"]

    /// Response fields not sent on as they arrived: the hop's own, the length (the body sent may
    /// differ), the encoding (bodies travel decoded) and challenges meant for a proxy.
    package static let unforwardedResponseHeaders: Set<String> =
        hopByHopHeaders.union(bodyLengthHeaders).union(["content-encoding", "proxy-authenticate"])

    /// Response fields a recording does not keep as they were on the wire: bodies are stored decoded.
    package static let storedFramingHeaders: Set<String> = hopByHopHeaders.union(bodyLengthHeaders).union(["content-encoding"])

    /// Whether a response with this status may carry a body: 1xx, 204 and 304 never do
    /// (RFC 9110 §6.4.1).
    package static func statusAllowsBody(_ statusCode: Int) -> Bool {
        !(100..<200).contains(statusCode) && statusCode != 204 && statusCode != 304
    }

    /// Whether the answer to `method` with this status has no body on the wire (HEAD answers never do).
    package static func answerIsBodiless(isHEAD: Bool, statusCode: Int) -> Bool {
        isHEAD || !statusAllowsBody(statusCode)
    }
}
