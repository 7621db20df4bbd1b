import CassetteKernel
import CassetteServing
import NIOCore

/// The first handler inside an intercepted CONNECT tunnel: its first byte says what the client
/// speaks, since a `ws://` client (the PyPI `websockets` one among them) opens a CONNECT to a
/// plain-HTTP port as a `wss://` client does to a TLS one. `0x16` is a TLS handshake record
/// (RFC 8446 §5.1), which no HTTP request line starts with: TLS is set up, else plain HTTP is
/// served. Either way the sniffer sets up what follows it, hands on the bytes it read, and goes.
package final class TunnelProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    /// Adds the handlers for TLS (`true`) or plain HTTP (`false`) after the sniffer.
    private let setUp: (_ tls: Bool, _ operations: ChannelPipeline.SynchronousOperations) throws -> Void
    private var decided = false

    package init(setUp: @escaping (_ tls: Bool, _ operations: ChannelPipeline.SynchronousOperations) throws -> Void) {
        self.setUp = setUp
    }

    package static let tlsHandshakeRecord: UInt8 = 0x16

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = Self.unwrapInboundIn(data)
        guard !decided, let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else {
            context.fireChannelRead(data)
            return
        }
        decided = true
        do {
            try setUp(first == Self.tlsHandshakeRecord, context.pipeline.syncOperations)
        } catch {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

@available(*, unavailable)
extension TunnelProtocolSniffer: Sendable {}
