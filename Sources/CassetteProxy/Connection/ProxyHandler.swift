import CassetteTools
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// One client connection: collects each request (head and body, up to the size limit), asks the
/// responder for the answer and writes it. `HTTPServerPipelineHandler` in front of it delivers one
/// request at a time, so pipelined requests are answered in order.
final class ProxyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    package let server: ProxyServerContext
    /// This connection's event loop's request-log buffer (`RequestLog`).
    let logShard: Int
    /// What this connection is doing: the decisions, tested on their own.
    private var machine: ProxyConnectionStateMachine
    /// The replay hot path's keys, shared by the connections of this event loop.
    let targetCache: NIOLoopBoundBox<ReplayTargetCache>
    /// Where this connection's forwarded requests run (`EventLoopTaskExecutor`), made on first use.
    private var loopExecutor: EventLoopTaskExecutor?

    init(server: ProxyServerContext, logShard: Int = 0, targetCache: NIOLoopBoundBox<ReplayTargetCache>) {
        self.server = server
        self.logShard = logShard
        self.targetCache = targetCache
        machine = ProxyConnectionStateMachine(maxBodySize: server.settings.maxBodySize)
    }

    func taskExecutor(on eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        if let loopExecutor { return loopExecutor }
        let executor = EventLoopTaskExecutor(eventLoop)
        loopExecutor = executor
        return executor
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            perform(machine.head(head, now: .now()).action, context: context)
        case .body(let chunk):
            perform(machine.body(chunk), context: context)
        case .end:
            perform(machine.end(), context: context)
        }
    }

    private func perform(_ action: ProxyConnectionStateMachine.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .sendContinue(let version):
            context.writeAndFlush(Self.wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .continue))), promise: nil)
        case .refuse(.interim, let head, let started):
            if let refusal = InterimRequestHeaders.refusal(of: head) {
                send(refusal, context: context, head: head, started: started, forceClose: true)
            }
        case .refuse(.tooLarge, let head, let started):
            let answer = ProxyAnswer.error(
                413, code: "payload_too_large",
                message: "the request body is larger than the proxy's limit of \(server.settings.maxBodySize) bytes; raise it with --max-body-size")
            send(answer, context: context, head: head, started: started, forceClose: true)
        case .answer(let head, let body, let started):
            handle(context: context, head: head, body: body, started: started)
        case .rejectMalformed(let error):
            MalformedRequestAnswer.write(error, context: context)
            context.close(promise: nil)
        case .close:
            context.close(promise: nil)
        }
    }

    private func handle(context: ChannelHandlerContext, head: HTTPRequestHead, body: ByteBuffer?, started: NIODeadline) {
        if head.uri.hasPrefix(ProxyEndpoints.prefix) {
            send(server.endpoints.answer(for: head), context: context, head: head, started: started)
            return
        }
        if server.answersSynchronously {
            replayNow(context: context, head: head, body: body, started: started)
            return
        }
        let responder = server.responder
        let request: TransportRequest
        do {
            request = try server.requestBuilder.transportRequest(head: head, body: body)
        } catch {
            send(responder.answer(for: error), context: context, head: head, started: started)
            return
        }
        forward(request, context: context, head: head, started: started)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // One broken connection never affects the others: this one closes, after a 400 for a
        // request that is not HTTP/1.1.
        perform(machine.error(error), context: context)
    }
}

@available(*, unavailable)
extension ProxyHandler: Sendable {}
