import NIOHTTP1

extension HTTPRequestHead {
    /// Whether the connection stays open after the answer: an HTTP/1.1 keep-alive request (or an
    /// HTTP/1.0 one that asked), or any HTTP/2 stream, whose end never ends its connection.
    package var keepsConnectionOpen: Bool {
        version.major == 2 || isKeepAlive
    }

    /// Whether a prepared keep-alive head (`PreparedHead.keepAliveHead`) answers it as it is: an
    /// HTTP/1.1 keep-alive request, or an HTTP/2 stream, whose codec drops the version and the
    /// connection headers.
    package var takesKeepAliveHead: Bool {
        (version == .http1_1 && isKeepAlive) || version.major == 2
    }
}
