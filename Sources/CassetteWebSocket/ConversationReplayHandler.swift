import CassetteKernel
import CassetteServing
import Foundation
import NIOCore
import NIOWebSocket
import WellPlateCore

/// Plays a recorded conversation to a live client, offline: it performs the actions of a
/// `MultiplexedReplay` in order within each lane (the messages of no operation, and each
/// operation a client opened), each after its recorded delay (times `--ws-timing`) from the one
/// before in its lane, or from the client message that prompted it; lanes run side by side, as
/// the recorded operations did. Pings get pongs; a client message that is not a recorded one
/// closes with 1008 and is reported as a miss.
package final class ConversationReplayHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = WebSocketFrame
    package typealias OutboundOut = WebSocketFrame

    package struct Parts: Sendable {
        package let keyer: ReplayKeyer
        package let session: CassetteSession
        package let options: WebSocketOptions
        package let log: ProxyLog
        /// The handshake's target, as logged.
        package let logTarget: String
        /// The secrets of the live handshake: a message that repeats one matches its redacted recording.
        package let secrets: SecretValues
        /// A session's journal, which counts a miss; `track`, the conversation's entry in it; `key`, the conversation's.
        package var journal: SessionJournal? = nil
        package var track: JournalConversation? = nil
        package var key: String = ""
        /// What the client's offer of permessage-deflate was answered with.
        package var deflate: PerMessageDeflate? = nil
    }

    private var replay: MultiplexedReplay
    private let parts: Parts
    private var assembler: MessageAssembler
    /// Compresses each message sent anew, when the client agreed to permessage-deflate.
    private let deflater: MessageDeflater?
    /// One lane's actions not yet performed, and its clock.
    private struct Lane {
        /// From `next` on (the array keeps its storage between turns).
        var queue: [ConversationReplay.Action] = []
        var next = 0
        /// Whether an action is waiting for its time.
        var scheduled = false
        /// When its last action was performed, or the client message that prompted the next arrived.
        var anchor = NIODeadline.uptimeNanoseconds(0)

        var isIdle: Bool { next == queue.count && !scheduled }

        mutating func clear() {
            queue.removeAll(keepingCapacity: true)
            next = 0
        }
    }

    /// Lane 0: the messages of no operation; lane `n`: the recording's `n`th operation.
    private var lanes: [Lane] = [Lane()]
    /// The steps of one client message, reused.
    private var steps: [MultiplexedReplay.Step] = []
    /// The recorded end, once due, waiting for the other lanes' messages to go first.
    private var heldEnd: ConversationReplay.Action?
    /// Whether delays are kept at all: with `--ws-timing fast` every action is due at once, and
    /// no clock is read.
    private let keepsTime: Bool
    private var closeSent = false
    private var context: ChannelHandlerContext?

    /// `replay`: the conversation from its start (`RecordedConversations.take`).
    package init(_ replay: MultiplexedReplay, parts: Parts) throws {
        self.replay = replay
        self.parts = parts
        keepsTime = parts.options.timingScale > 0
        deflater = try parts.deflate.map { try MessageDeflater($0) }
        assembler = MessageAssembler(
            maxMessageSize: parts.options.maxMessageSize, sender: .client, inflater: try parts.deflate.map { _ in try MessageInflater() })
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if keepsTime { lanes[0].anchor = .now() }
        enqueue(replay.start(), context: context)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        // Gone without a close handshake: the client went away (an end already reported stays).
        parts.track?.finish(.dropped(by: .client))
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        switch assembler.add(frame) {
        case .partial:
            return
        case .refused(let violation):
            guard !closeSent else { return }
            parts.log.warn("WebSocket \(parts.logTarget): \(violation.reason); closed with \(violation.code)")
            clearQueue()
            close(code: violation.code, reason: violation.reason, context: context)
        case .message(.ping, let payload, _):
            var data = context.channel.allocator.buffer(capacity: payload.count)
            data.writeBytes(payload)
            context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: data)), promise: nil)
        case .message(.pong, _, _):
            return
        case .message(.close, let payload, _):
            if closeSent {
                context.close(promise: nil)
            } else {
                let (code, reason) = ConversationReplay.closeFields(payload)
                parts.track?.finish(.closed(by: .client, code: code, reason: reason))
                close(code: code, reason: reason, context: context)
            }
        case .message(let kind, let payload, _):
            // Once the close is sent, the client's messages answer nothing.
            guard !closeSent else { return }
            let arrived: NIODeadline = keepsTime ? .now() : .uptimeNanoseconds(0)
            do {
                steps.removeAll(keepingCapacity: true)
                // The keyer and secrets are read where they are, not copied for every message.
                try replay.receive(kind: kind, payload: payload, into: &steps) {
                    self.parts.keyer.messageMatches(live: $0, recorded: $1, secrets: self.parts.secrets)
                }
                parts.track?.add(.client, kind, matched: true)
                if let track = parts.track, let lane = replay.openedLane, let label = replay.label(ofLane: lane) { track.opened(label) }
                if keepsTime {
                    // A lane's delays count from the message that prompted them when it was idle.
                    for step in steps {
                        while lanes.count <= step.lane { lanes.append(Lane()) }
                        if lanes[step.lane].isIdle { lanes[step.lane].anchor = arrived }
                    }
                    if steps.isEmpty, lanes[0].isIdle { lanes[0].anchor = arrived }
                }
                enqueue(steps, context: context)
            } catch {
                miss(error, received: ConversationMessage(direction: .client, kind: kind, payload: payload, offsetMilliseconds: 0), context: context)
            }
        }
    }

    private func miss(_ mismatch: ConversationReplay.Mismatch, received: ConversationMessage, context: ChannelHandlerContext) {
        parts.session.countConversationMiss()
        let operation = mismatch.operation.map { "operation \($0), " } ?? ""
        let expected =
            mismatch.expected.map { operation + "\($0.kind.rawValue) \($0.preview(limit: 200))" } ?? "nothing (the recording has no more client messages)"
        let receivedText = "\(received.kind.rawValue) \(received.preview(limit: 200))"
        parts.log.warn(parts.log.labelled("MISS WebSocket \(parts.logTarget): expected \(expected), received \(receivedText); closed with 1008"))
        parts.track?.missed(JournalConversation.Miss(expected: expected, received: receivedText))
        parts.journal?.countConversationMiss(
            key: parts.key, message: "WebSocket \(parts.logTarget): expected \(expected), received \(receivedText); closed with 1008", arrived: .now())
        clearQueue()
        close(code: 1008, reason: mismatch.reason, context: context)
    }

    private func enqueue(_ steps: [MultiplexedReplay.Step], context: ChannelHandlerContext) {
        for step in steps {
            while lanes.count <= step.lane { lanes.append(Lane()) }
            lanes[step.lane].queue.append(step.action)
        }
        // Lane 0 first: on open, and for the messages of no operation, it is the only one.
        for lane in lanes.indices where !lanes[lane].isIdle { runNext(lane, context: context) }
    }

    private func clearQueue() {
        for lane in lanes.indices { lanes[lane].clear() }
        heldEnd = nil
    }

    /// Performs lane `lane`'s next action once its delay from the one before has passed.
    private func runNext(_ lane: Int, context: ChannelHandlerContext) {
        guard !lanes[lane].scheduled, lanes[lane].next < lanes[lane].queue.count, !closeSent else { return }
        let action = lanes[lane].queue[lanes[lane].next]
        lanes[lane].next += 1
        if lanes[lane].next == lanes[lane].queue.count { lanes[lane].clear() }
        let delay: Double
        switch action {
        case .send(_, let milliseconds), .close(_, _, let milliseconds), .drop(let milliseconds): delay = milliseconds
        }
        let scaled = delay * parts.options.timingScale
        // An action due at once (the anchor is never later than now) needs no clock.
        guard scaled > 0 else {
            perform(action, lane: lane, context: context)
            return
        }
        let due = lanes[lane].anchor + .nanoseconds(Int64(scaled * 1_000_000))
        guard due > .now() else {
            perform(action, lane: lane, context: context)
            return
        }
        lanes[lane].scheduled = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(deadline: due) {
            let handler = loopBound.value
            guard lane < handler.lanes.count else { return }
            handler.lanes[lane].scheduled = false
            guard let context = handler.context else { return }
            handler.perform(action, lane: lane, context: context)
        }
    }

    private func perform(_ action: ConversationReplay.Action, lane: Int, context: ChannelHandlerContext) {
        if keepsTime { lanes[lane].anchor = .now() }
        if case .send = action {
        } else if lanes.indices.contains(where: { $0 != lane && !lanes[$0].isIdle }) {
            // The end waits for what other lanes still have to send, as the recording's came last.
            heldEnd = action
            return
        }
        switch action {
        case .send(let message, _):
            parts.track?.add(.server, message.kind)
            var data = context.channel.allocator.buffer(capacity: message.payload.count)
            message.payload.withUnsafeBytes { _ = data.writeBytes($0) }
            let opcode: WebSocketOpcode = message.kind == .text ? .text : message.kind == .ping ? .ping : .binary
            if deflater == nil, opcode != .ping, message.fragments.count > 1, message.fragments.reduce(0, +) == data.readableBytes {
                writeFragments(of: data, sizes: message.fragments, opcode: opcode, context: context)
                break
            }
            var frame = WebSocketFrame(fin: true, opcode: opcode, data: data)
            if let deflater, opcode != .ping {
                do {
                    frame = WebSocketFrame(fin: true, rsv1: true, opcode: opcode, data: try deflater.deflate(data, allocator: context.channel.allocator))
                } catch {
                    parts.log.warn("WebSocket \(parts.logTarget): could not compress a message (\(error)); closed with 1011")
                    clearQueue()
                    close(code: 1011, reason: "cassette could not compress a message", context: context)
                    return
                }
            }
            context.writeAndFlush(Self.wrapOutboundOut(frame), promise: nil)
        case .close(let code, let reason, _):
            close(code: code, reason: reason, context: context)
        case .drop:
            parts.track?.finish(.dropped(by: .server))
            context.close(promise: nil)
        }
        runNext(lane, context: context)
        if let end = heldEnd, lanes.allSatisfy(\.isIdle) {
            heldEnd = nil
            perform(end, lane: lane, context: context)
        }
    }

    /// A message sent in the fragments it was recorded in: the first frame with its opcode, then
    /// continuations, the last one final. Only without compression: a compressed message's
    /// recorded sizes are the compressed bytes', which a message compressed anew does not have.
    private func writeFragments(of data: ByteBuffer, sizes: [Int], opcode: WebSocketOpcode, context: ChannelHandlerContext) {
        var offset = data.readerIndex
        for (index, size) in sizes.enumerated() {
            let last = index == sizes.count - 1
            let fragment = data.getSlice(at: offset, length: size) ?? ByteBuffer()
            offset += size
            context.write(Self.wrapOutboundOut(WebSocketFrame(fin: last, opcode: index == 0 ? opcode : .continuation, data: fragment)), promise: nil)
        }
        context.flush()
    }

    /// Sends a close frame, then closes once the client answers it (or after a grace period).
    private func close(code: Int?, reason: String, context: ChannelHandlerContext) {
        guard !closeSent else { return }
        closeSent = true
        // The client's own close was reported as it came; any other is the server's (replayed, a miss, a bad frame, stopping).
        parts.track?.finish(.closed(by: .server, code: code, reason: reason))
        let frame = WebSocketFrame.close(code: code, reason: reason, allocator: context.channel.allocator)
        context.writeAndFlush(Self.wrapOutboundOut(frame), promise: nil)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // The proxy is stopping.
        clearQueue()
        closeSent = false
        close(code: 1001, reason: "cassette is stopping", context: context)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: .milliseconds(100)) { channel.close(promise: nil) }
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let refused = error as? NIOWebSocketError else {
            context.close(promise: nil)
            return
        }
        // A frame the decoder refused (too large, malformed): the close frame says why, and the
        // connection reads on until the client answers, so a client still sending is not reset.
        guard !closeSent else { return }
        parts.log.warn("WebSocket \(parts.logTarget): \(refused.violation.reason); closed with \(refused.violation.code)")
        clearQueue()
        close(code: refused.violation.code, reason: refused.violation.reason, context: context)
    }
}
