import NIOCore
import NIOHTTP1
import NIOHTTP2

/// HTTP/2 on a listener beside HTTP/1.1: how a connection that spoke HTTP/2 is set up. Each
/// stream is one request, answered by the listener's responder through `HTTPConnectionHandler`
/// behind `HTTP2FramePayloadToHTTP1ServerCodec`, as an HTTP/1.1 request is (one recording serves
/// both), unless a module's `HTTP2StreamSwitches` takes it, or the responder answers it at the
/// connection (`HTTP2PlainReplies`, the replay hot path).
package struct HTTP2Serving: Sendable {
    package var limits: HTTP2Limits
    package var streamSwitches: HTTP2StreamSwitches

    package init(limits: HTTP2Limits = .standard, streamSwitches: HTTP2StreamSwitches = .none) {
        self.limits = limits
        self.streamSwitches = streamSwitches
    }

    /// Sets `channel` up for HTTP/2 (the client's preface comes next): swift-nio-http2's handler
    /// with the limits; `HTTP2PlainReplies`, which answers plain replays at the connection; a
    /// stream for each other request (`HTTP2StreamMultiplexer`, the multiplexer that is a
    /// handler of its own, so that `HTTP2PlainReplies` can sit before it); when the server
    /// quiesces an idle connection closes at once (`HTTP2IdleShutdown`), a busy one shuts down
    /// gracefully (GOAWAY, then the open streams finish); `HTTP2ConnectionGuard` last.
    package func configure(_ channel: any Channel, responder: any ConnectionResponder, loop: ConnectionLoop) throws {
        let pipeline = channel.pipeline.syncOperations
        // Idle connections and keep-alive pings are left to clients, as over HTTP/1.1.
        let management = NIOHTTP2ServerConnectionManagementHandler(
            eventLoop: pipeline.eventLoop, configuration: .init(maxIdleTime: nil, maxAge: nil, maxGraceTime: limits.gracePeriod, keepalive: nil))
        let switches = streamSwitches
        // A held call's body never waits for the stream's window, which nobody would open.
        let plain = HTTP2PlainReplies(
            responder: responder, streamSwitches: switches, logShard: loop.logShard, heldBodyLimit: min(HTTP2HeldCall.bodyLimit, limits.streamWindow))
        let plainOnLoop = NIOLoopBound(plain, eventLoop: pipeline.eventLoop)
        let stream = limits.stream
        // Its flow-control window target is the connection's and each stream's: the stream's
        // limit, since a stream's is what bounds what the proxy holds unread (the connection's
        // window is given back as frames arrive, read or not).
        let multiplexer = HTTP2StreamMultiplexer(
            mode: .server, channel: channel, targetWindowSize: stream.targetWindowSize, outboundBufferSizeHighWatermark: stream.outboundBufferSizeHighWatermark,
            outboundBufferSizeLowWatermark: stream.outboundBufferSizeLowWatermark
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                let operations = stream.pipeline.syncOperations
                let handoff = plainOnLoop.value.takeHandoff(for: stream)
                if switches.isEmpty {
                    try Self.configureOrdinaryStream(operations, responder: responder, logShard: loop.logShard, handoff: handoff)
                } else {
                    try operations.addHandler(
                        HTTP2StreamRouter(switches: switches, loop: loop) {
                            try Self.configureOrdinaryStream($0, responder: responder, logShard: loop.logShard, handoff: handoff)
                        })
                }
            }
        }
        try pipeline.addHandler(NIOHTTP2Handler(mode: .server, connectionConfiguration: limits.connection, streamConfiguration: stream))
        try pipeline.addHandler(plain)
        try pipeline.addHandler(multiplexer)
        // Both learn of streams, those answered at the connection too, from the events
        // `NIOHTTP2Handler` fires (this multiplexer takes no stream delegate).
        try pipeline.addHandler(HTTP2IdleShutdown())
        try pipeline.addHandler(management)
        try pipeline.addHandler(HTTP2ConnectionGuard(log: responder.writer.log, shard: loop.logShard))
    }

    /// A stream that is an ordinary request: HTTP/1-style parts for the kernel's handler, and
    /// `HTTP2ReplyOutlet` in front of the codec for prepared replies.
    /// `handoff`: what `HTTP2PlainReplies` made for its request and handed on.
    static func configureOrdinaryStream(
        _ pipeline: ChannelPipeline.SynchronousOperations, responder: any ConnectionResponder, logShard: Int, handoff: (any Sendable)? = nil
    ) throws {
        let outlet = HTTP2ReplyOutlet()
        try pipeline.addHandler(outlet)
        try pipeline.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
        try pipeline.addHandler(HTTPConnectionHandler(responder: responder, logShard: logShard, http2Outlet: outlet, handoff: handoff))
    }
}
