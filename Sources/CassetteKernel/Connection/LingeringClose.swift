import NIOCore
import NIOHTTP1
import NIOHTTP2

/// How a connection is closed after an error answer (a 400 for a malformed request, a 413, a
/// refused upgrade) while the client may still be sending: a lingering close (RFC 9112 §9.6).
///
/// Closing a socket whose receive buffer holds unread bytes makes the kernel send a reset, and a
/// reset makes the client's kernel discard what it had received but the client had not yet read:
/// the answers to the pipelined requests before the bad one, and the error answer itself. So the
/// write side is shut down once the answers are written (the client reads them, then the end),
/// and whatever still arrives is read and thrown away until the client closes, goes quiet for
/// `quietPeriod`, or `limit` has passed; only then is the socket closed.
///
/// The handler goes in front of the HTTP decoder (behind TLS, inside an intercepted tunnel), so
/// the discarded bytes are never parsed, and it asks for reads itself: the handlers behind it
/// stop reading while answers are in flight.
package final class LingeringClose: ChannelDuplexHandler {
    package typealias InboundIn = ByteBuffer
    package typealias OutboundIn = NIOAny

    /// How long the client may send nothing before the socket is closed.
    package static let quietPeriod = TimeAmount.seconds(2)
    /// How long the draining may last at most, against a client that keeps sending.
    package static let limit = TimeAmount.seconds(10)

    private var lastRead = NIODeadline.now()
    private var quietCheck: Scheduled<Void>?
    private var deadline: Scheduled<Void>?

    /// Starts the lingering close of `context`'s channel: the answers already written go out,
    /// then the write side is shut down and the input drained. Call it on the channel's event
    /// loop after the last write.
    package static func start(_ context: ChannelHandlerContext) {
        let channel = context.channel
        // An HTTP/2 stream: closing it resets only that stream (RST_STREAM), and the connection's
        // flow control already keeps what the client still sends from piling up.
        let pipeline = channel.pipeline.syncOperations
        if (try? pipeline.context(handlerType: HTTP2FramePayloadToHTTP1ServerCodec.self)) != nil {
            context.close(promise: nil)
            return
        }
        // Already lingering: a second error answer or error changes nothing.
        if (try? pipeline.context(handlerType: LingeringClose.self)) != nil { return }
        do {
            if let decoderContext = try? pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) {
                let front = try? pipeline.context(handlerType: RequestHeadBytesHandler.self)
                try pipeline.addHandler(LingeringClose(), position: .before((front ?? decoderContext).handler))
            } else {
                try pipeline.addHandler(LingeringClose(), position: .first)
            }
        } catch {
            // A channel already closing: nothing left to drain.
            context.close(promise: nil)
            return
        }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenFailure { _ in channel.close(promise: nil) }
        context.close(mode: .output, promise: promise)
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: Self.limit) { loopBound.value.close(promise: nil) }
        scheduleQuietCheck(context)
        context.read()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        quietCheck?.cancel()
        deadline?.cancel()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Discarded: the connection is over, and nothing behind this handler may see more of it.
        lastRead = .now()
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        context.read()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client has closed its side (with half-closure allowed): everything has been read.
        if case ChannelEvent.inputClosed = event {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a read error: there is nothing left to protect.
        context.close(promise: nil)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        quietCheck?.cancel()
        deadline?.cancel()
        context.fireChannelInactive()
    }

    private func scheduleQuietCheck(_ context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        quietCheck = context.eventLoop.scheduleTask(deadline: lastRead + Self.quietPeriod) {
            let (handler, context) = loopBound.value
            if NIODeadline.now() - handler.lastRead >= Self.quietPeriod {
                context.close(promise: nil)
            } else {
                handler.scheduleQuietCheck(context)
            }
        }
    }
}

@available(*, unavailable)
extension LingeringClose: Sendable {}
