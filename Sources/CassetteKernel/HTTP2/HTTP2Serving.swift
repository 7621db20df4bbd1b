import NIOCore
import NIOHTTP1
import NIOHTTP2

/// HTTP/2 on a listener beside HTTP/1.1: how a connection that spoke HTTP/2 is set up. Each
/// stream is one request, answered by the listener's responder through `HTTPConnectionHandler`
/// behind `HTTP2FramePayloadToHTTP1ServerCodec`, as an HTTP/1.1 request is (one recording serves
/// both), unless a module's `HTTP2StreamSwitches` takes it.
package struct HTTP2Serving: Sendable {
    package var limits: HTTP2Limits
    package var streamSwitches: HTTP2StreamSwitches

    package init(limits: HTTP2Limits = .standard, streamSwitches: HTTP2StreamSwitches = .none) {
        self.limits = limits
        self.streamSwitches = streamSwitches
    }

    /// Sets `pipeline` up for HTTP/2 (the client's preface comes next): swift-nio-http2's handler
    /// with the limits and a stream for each request; when the server quiesces an idle connection
    /// closes at once (`HTTP2IdleShutdown`), a busy one shuts down gracefully (GOAWAY, then the
    /// open streams finish); `HTTP2ConnectionGuard` last.
    package func configure(_ pipeline: ChannelPipeline.SynchronousOperations, responder: any ConnectionResponder, loop: ConnectionLoop) throws {
        // Idle connections and keep-alive pings are left to clients, as over HTTP/1.1.
        let management = NIOHTTP2ServerConnectionManagementHandler(
            eventLoop: pipeline.eventLoop, configuration: .init(maxIdleTime: nil, maxAge: nil, maxGraceTime: limits.gracePeriod, keepalive: nil))
        let switches = streamSwitches
        _ = try pipeline.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: limits.connection, streamConfiguration: limits.stream,
            streamDelegate: management.http2StreamDelegate
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                let operations = stream.pipeline.syncOperations
                if switches.isEmpty {
                    try Self.configureOrdinaryStream(operations, responder: responder, logShard: loop.logShard)
                } else {
                    try operations.addHandler(
                        HTTP2StreamRouter(switches: switches, loop: loop) {
                            try Self.configureOrdinaryStream($0, responder: responder, logShard: loop.logShard)
                        })
                }
            }
        }
        try pipeline.addHandler(HTTP2IdleShutdown())
        try pipeline.addHandler(management)
        try pipeline.addHandler(HTTP2ConnectionGuard(log: responder.writer.log, shard: loop.logShard))
    }

    /// A stream that is an ordinary request: HTTP/1-style parts for the kernel's handler, and
    /// `HTTP2ReplyOutlet` in front of the codec for prepared replies.
    static func configureOrdinaryStream(_ pipeline: ChannelPipeline.SynchronousOperations, responder: any ConnectionResponder, logShard: Int) throws {
        let outlet = HTTP2ReplyOutlet()
        try pipeline.addHandler(outlet)
        try pipeline.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
        try pipeline.addHandler(HTTPConnectionHandler(responder: responder, logShard: logShard, http2Outlet: outlet))
    }
}
