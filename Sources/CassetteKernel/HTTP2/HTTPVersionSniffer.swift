import NIOCore

/// The first handler of a plain listener's connection: tells HTTP/2 with prior knowledge (RFC
/// 9113 §3.3: the client starts with the preface `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`) from
/// HTTP/1.1 by the first bytes, sets the connection up for the one it speaks, hands on what it
/// read and leaves the pipeline. An HTTP/1.1 request differs from the preface within its first
/// bytes (by the second unless its method is `PRI`), so it pays one look at its first read and
/// nothing after.
/// Bytes that are neither go the HTTP/1.1 way and get its 400.
package final class HTTPVersionSniffer: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    /// The client connection preface.
    package static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// Sets up what follows this handler in the channel's pipeline for HTTP/1.1 (`false`) or
    /// HTTP/2 (`true`).
    package typealias SetUp = (_ http2: Bool, any Channel) throws -> Void

    private let setUp: SetUp
    /// What came while it was still a beginning of the preface.
    private var kept: ByteBuffer?

    package init(setUp: @escaping SetUp) {
        self.setUp = setUp
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = Self.unwrapInboundIn(data)
        if var kept {
            self.kept = nil
            kept.writeBuffer(&buffer)
            buffer = kept
        }
        let compared = min(buffer.readableBytes, Self.preface.count)
        let matches = buffer.readableBytesView.prefix(compared).elementsEqual(Self.preface.prefix(compared))
        if matches && compared < Self.preface.count {
            kept = buffer
            return
        }
        do {
            try setUp(matches, context.channel)
        } catch {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(Self.wrapInboundOut(buffer))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The server shuts down before the client said anything: nothing to finish.
        if event is ChannelShouldQuiesceEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

@available(*, unavailable)
extension HTTPVersionSniffer: Sendable {}
