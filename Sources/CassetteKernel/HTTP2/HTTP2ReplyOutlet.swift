import NIOCore
import NIOHTTP2

/// An HTTP/2 stream's way around `HTTP2FramePayloadToHTTP1ServerCodec` for the replay hot path:
/// sits before the codec and writes a prepared reply as its HEADERS (HPACK headers made once per
/// `PreparedHead`) and one DATA frame that ends the stream, in one flush. Through the codec the
/// same answer costs a header conversion per request and a third, empty DATA frame for its end.
/// Everything else the stream writes passes it unchanged.
package final class HTTP2ReplyOutlet: ChannelOutboundHandler, RemovableChannelHandler {
    package typealias OutboundIn = HTTP2Frame.FramePayload
    package typealias OutboundOut = HTTP2Frame.FramePayload

    private var context: ChannelHandlerContext?

    package init() {}

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Writes `head`'s HTTP/2 headers and `body` (`nil`: none) as the stream's whole answer;
    /// `false` when the handler is no longer in a pipeline (the caller writes the usual way).
    package func write(_ head: PreparedHead, body: ByteBuffer?) -> Bool {
        guard let context else { return false }
        if let body {
            context.write(Self.wrapOutboundOut(.headers(.init(headers: head.http2Headers))), promise: nil)
            context.writeAndFlush(Self.wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
        } else {
            context.writeAndFlush(Self.wrapOutboundOut(.headers(.init(headers: head.http2Headers, endStream: true))), promise: nil)
        }
        return true
    }
}

@available(*, unavailable)
extension HTTP2ReplyOutlet: Sendable {}
