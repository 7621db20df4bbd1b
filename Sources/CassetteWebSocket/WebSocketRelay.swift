import CassetteKernel
import CassetteServing
import Foundation
import NIOCore
import NIOWebSocket
import WellPlateCore

/// One side of a relayed conversation: frames read from this side's channel are written to the
/// other side's as they arrive (unmasked from the client, masked again towards the upstream),
/// and, when recording, joined into messages for the `ConversationRecorder`. Both channels live on
/// the same event loop (the upstream is dialled from the client's), so each side writes to the
/// other directly.
package final class WebSocketRelay: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = WebSocketFrame
    package typealias OutboundOut = WebSocketFrame

    package let side: ConversationSide
    private let recorder: ConversationRecorder?
    /// The conversation in a session's journal, both sides counting into it.
    private let track: JournalConversation?
    private var assembler: MessageAssembler
    /// The other side's channel; frames that arrive before it is attached wait here (an upstream
    /// may push as soon as its handshake completes, before the client has its `101`).
    private var peer: Channel?
    private var waiting: [WebSocketFrame] = []
    private var context: ChannelHandlerContext?
    /// Whether this side was sent a close for a message the proxy will not relay.
    private var refused = false

    /// Where a refused frame is reported, and the handshake's target as logged.
    private let log: ProxyLog
    private let logTarget: String

    /// `inflater`: set when the upstream agreed to permessage-deflate. Frames still pass as they
    /// came (both ends share the agreement); the store gets each message inflated.
    package init(
        side: ConversationSide, recorder: ConversationRecorder?, track: JournalConversation? = nil, maxMessageSize: Int, log: ProxyLog, logTarget: String,
        inflater: MessageInflater? = nil
    ) {
        self.side = side
        self.recorder = recorder
        self.track = track
        self.log = log
        self.logTarget = logTarget
        assembler = MessageAssembler(maxMessageSize: maxMessageSize, sender: side, inflater: inflater)
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// Joins this side to the other's channel and writes what waited for it.
    package func attach(_ peer: Channel) {
        self.peer = peer
        for frame in waiting { relay(frame) }
        waiting.removeAll()
        if !(context?.channel.isActive ?? false) { peer.close(promise: nil) }
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        guard !refused else {
            // The sender answered the proxy's close: nothing more will come.
            if frame.opcode == .connectionClose { context.close(promise: nil) }
            return
        }
        switch assembler.add(frame) {
        case .partial:
            break
        case .message(let kind, let payload, let fragments):
            recorder?.add(side, kind, payload, fragments: fragments)
            track?.add(side, kind)
            if let track, side == .client,
                let operation = MessageOperation(ConversationMessage(direction: side, kind: kind, payload: payload, offsetMilliseconds: 0)),
                operation.opens, let label = operation.label
            {
                track.opened(label)
            }
            if kind == .close {
                let (code, reason) = ConversationReplay.closeFields(payload)
                recorder?.finish(.closed(by: side, code: code, reason: reason))
                track?.finish(.closed(by: side, code: code, reason: reason))
            }
        case .refused(let violation):
            refuse(violation, context: context)
            return
        }
        guard peer != nil else {
            waiting.append(frame)
            return
        }
        relay(frame)
    }

    private func relay(_ frame: WebSocketFrame) {
        guard let peer else { return }
        // Towards the upstream every frame is masked anew (RFC 6455 §5.3); towards the client never.
        let out = WebSocketFrame(
            fin: frame.fin, rsv1: frame.rsv1, rsv2: frame.rsv2, rsv3: frame.rsv3, opcode: frame.opcode,
            maskKey: side == .client ? .random() : nil, data: frame.unmaskedData)
        peer.writeAndFlush(out, promise: nil)
    }

    /// Closes this side with the violation's code and the other with 1001: a frame or message
    /// this proxy will not relay (nor store).
    private func refuse(_ violation: WebSocketViolation, context: ChannelHandlerContext) {
        guard !refused else { return }
        refused = true
        // The proxy closes it, standing for the side that did not send the frame; reported first,
        // as closing the peer below reports the peer's channel gone (on this event loop, at once).
        recorder?.finish(.closed(by: side == .client ? .server : .client, code: violation.code, reason: violation.reason))
        track?.finish(.closed(by: side == .client ? .server : .client, code: violation.code, reason: violation.reason))
        log.warn("WebSocket \(logTarget): the \(side.rawValue) sent a frame the proxy refused (\(violation.reason)); closed with \(violation.code)")
        let close = WebSocketFrame.close(
            code: violation.code, reason: violation.reason, allocator: context.channel.allocator, masked: side == .server)
        let channel = context.channel
        // Reading goes on for a moment after the close frame, so a peer still sending sees it
        // instead of a reset.
        context.writeAndFlush(Self.wrapOutboundOut(close), promise: nil)
        context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        if let peer {
            peer.writeAndFlush(WebSocketFrame.close(code: 1001, reason: "", allocator: peer.allocator, masked: side == .client), promise: nil)
            peer.close(promise: nil)
        }
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // The proxy is stopping: the conversation is cut here, both sides told it is going away.
        recorder?.finish(.cut)
        track?.finish(.cut)
        let close = WebSocketFrame.close(code: 1001, reason: "cassette is stopping", allocator: context.channel.allocator, masked: side == .server)
        let channel = context.channel
        context.writeAndFlush(Self.wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
        if let peer {
            peer.writeAndFlush(WebSocketFrame.close(code: 1001, reason: "", allocator: peer.allocator, masked: side == .client), promise: nil)
            peer.close(promise: nil)
        }
    }

    package func channelInactive(context: ChannelHandlerContext) {
        recorder?.finish(.dropped(by: side))
        track?.finish(.dropped(by: side))
        peer?.close(promise: nil)
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let frameError = error as? NIOWebSocketError else {
            context.close(promise: nil)
            return
        }
        refuse(frameError.violation, context: context)
    }
}
