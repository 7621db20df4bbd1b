import CassetteKernel
import CassetteServing
import NIOCore

/// One side of a tunnel (`CONNECT` to a host that is passed on untouched): bytes read on this
/// channel are written to the partner's, reads pause while the partner cannot take more, and
/// either side closing closes the other. The shape of swift-nio's connect-proxy example.
package final class TunnelGlue: ChannelDuplexHandler {
    package typealias InboundIn = NIOAny
    package typealias OutboundIn = NIOAny
    package typealias OutboundOut = NIOAny

    private var partner: TunnelGlue?
    private var context: ChannelHandlerContext?
    private var pendingRead = false

    private init() {}

    /// Two glued handlers; both channels must be on the same event loop.
    package static func matchedPair() -> (TunnelGlue, TunnelGlue) {
        let first = TunnelGlue()
        let second = TunnelGlue()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    private func partnerWrite(_ data: NIOAny) {
        context?.write(data, promise: nil)
    }

    private func partnerFlush() {
        context?.flush()
    }

    private func partnerWriteEOF() {
        context?.close(mode: .output, promise: nil)
    }

    private func partnerCloseFull() {
        context?.close(promise: nil)
    }

    private func partnerBecameWritable() {
        if pendingRead {
            pendingRead = false
            context?.read()
        }
    }

    private var partnerWritable: Bool {
        context?.channel.isWritable ?? false
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.partnerWrite(data)
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        partner?.partnerFlush()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        partner?.partnerCloseFull()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event {
            partner?.partnerWriteEOF()
        }
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        partner?.partnerCloseFull()
        context.close(promise: nil)
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            partner?.partnerBecameWritable()
        }
    }

    package func read(context: ChannelHandlerContext) {
        if let partner, partner.partnerWritable {
            context.read()
        } else {
            pendingRead = true
        }
    }
}

@available(*, unavailable)
extension TunnelGlue: Sendable {}
