import NIOCore
import NIOHTTP1
import NIOTLS

/// The one HTTP/1.1 server pipeline of every connection the kernel serves (reverse and session
/// listeners, CONNECT tunnels after TLS, the forward listener, `cassette ui`), and HTTP/2 beside
/// it where a listener serves both on one port.
package enum HTTPPipeline {
    /// The byte-exact header handlers where they are needed, NIO's HTTP server handlers with
    /// pipelining assistance and `switches`, then `handlers`.
    package static func configure(
        _ pipeline: ChannelPipeline.SynchronousOperations, restoresRawHeaderBytes: Bool, keepsRequestHeadBytes: Bool, switches: ProtocolSwitches,
        handlers: [any ChannelHandler]
    ) throws {
        // Byte-exact header handlers only where bytes that are not UTF-8 can occur and matter.
        if restoresRawHeaderBytes { try pipeline.addHandler(RawHeaderBytesHandler()) }
        let requestHeadBytes = keepsRequestHeadBytes ? RequestHeadBytesHandler() : nil
        if let requestHeadBytes { try pipeline.addHandler(requestHeadBytes) }
        try pipeline.configureHTTPServerPipeline(
            withPipeliningAssistance: true, withServerUpgrade: switches.leavingHTTP().configuration(), withErrorHandling: false)
        if let requestHeadBytes {
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(RequestHeadBytesHandler.Observer(requestHeadBytes), position: .after(decoder))
        }
        for handler in handlers { try pipeline.addHandler(handler) }
    }

    /// A plain listener's connection, HTTP/1.1 or HTTP/2 with prior knowledge as its first bytes
    /// say (`HTTPVersionSniffer`): `http1` sets up the HTTP/1.1 pipeline, `http2` an HTTP/2
    /// connection whose streams `responder` answers. Nothing is set up before the first bytes.
    package static func configure(
        _ pipeline: ChannelPipeline.SynchronousOperations, http2: HTTP2Serving, responder: any ConnectionResponder, loop: ConnectionLoop,
        http1: @escaping (ChannelPipeline.SynchronousOperations) throws -> Void
    ) throws {
        try pipeline.addHandler(
            HTTPVersionSniffer { isHTTP2, channel in
                if isHTTP2 {
                    try http2.configure(channel, responder: responder, loop: loop)
                } else {
                    try http1(channel.pipeline.syncOperations)
                }
            })
    }

    /// A connection behind TLS that offered ALPN `h2` and `http/1.1`: once the handshake says
    /// which the client chose, `http2` or `http1` sets it up (a client that chose none gets
    /// HTTP/1.1). What arrives meanwhile waits in `ApplicationProtocolNegotiationHandler`.
    package static func configureAfterALPN(
        _ pipeline: ChannelPipeline.SynchronousOperations, http2: HTTP2Serving, responder: any ConnectionResponder, loop: ConnectionLoop,
        http1: @escaping (ChannelPipeline.SynchronousOperations) throws -> Void
    ) throws {
        try pipeline.addHandler(
            ApplicationProtocolNegotiationHandler { result, channel in
                channel.eventLoop.makeCompletedFuture {
                    if case .negotiated(let chosen) = result, chosen == "h2" {
                        try http2.configure(channel, responder: responder, loop: loop)
                    } else {
                        try http1(channel.pipeline.syncOperations)
                    }
                }
            })
    }

    /// The protocols a TLS server of the kernel offers, in its order of preference.
    package static let alpnProtocols = ["h2", "http/1.1"]

    /// The plain pipeline of one responder: every connection of a listener that `responder` answers.
    package static func configure(
        _ pipeline: ChannelPipeline.SynchronousOperations, responder: any ConnectionResponder, switches: ProtocolSwitches = .none, logShard: Int,
        restoresRawHeaderBytes: Bool = false, keepsRequestHeadBytes: Bool = false
    ) throws {
        try configure(
            pipeline, restoresRawHeaderBytes: restoresRawHeaderBytes, keepsRequestHeadBytes: keepsRequestHeadBytes, switches: switches,
            handlers: [HTTPConnectionHandler(responder: responder, logShard: logShard, switches: switches)])
    }
}
