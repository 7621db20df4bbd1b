import NIOCore
import NIOHTTP2

/// Closes an HTTP/2 connection with no open stream at once when the server shuts down, as an
/// idle HTTP/1.1 connection is closed. swift-nio-http2's graceful shutdown (GOAWAY and a PING,
/// then close on the PING's ACK) waits for the client to read, but libcurl does not read the
/// idle connections it keeps for reuse: without this, stopping a proxy that the library's own
/// client used over HTTP/2 waited out the whole grace period. A connection with streams open
/// goes on to `NIOHTTP2ServerConnectionManagementHandler`, which lets them finish.
package final class HTTP2IdleShutdown: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTP2Frame
    package typealias InboundOut = HTTP2Frame
    package typealias OutboundOut = HTTP2Frame

    private var openStreams = Set<HTTP2StreamID>()
    private var lastStreamID = HTTP2StreamID.rootStream

    package init() {}

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Most events are window updates: one comparison of types, not three failed casts.
        if Swift.type(of: event) == NIOHTTP2WindowUpdatedEvent.self { return context.fireUserInboundEventTriggered(event) }
        switch event {
        case let created as NIOHTTP2StreamCreatedEvent:
            openStreams.insert(created.streamID)
            lastStreamID = max(lastStreamID, created.streamID)
        case let closed as StreamClosedEvent:
            openStreams.remove(closed.streamID)
        case is ChannelShouldQuiesceEvent where openStreams.isEmpty:
            // The last stream the client opened was answered: it may retry anything later.
            let goAway = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: nil))
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(goAway)).whenComplete { _ in channel.close(promise: nil) }
            return
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }
}

@available(*, unavailable)
extension HTTP2IdleShutdown: Sendable {}
