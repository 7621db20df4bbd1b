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

    private enum State {
        case idle
        case receiving(HTTPRequestHead, ByteBuffer?, started: NIODeadline)
        /// The body passed the limit: the 413 is sent, the rest of the request is ignored.
        case discarding
    }

    package let server: ProxyServerContext
    /// This connection's event loop's request-log buffer (`RequestLog`).
    let logShard: Int
    private var state = State.idle
    /// The replay hot path's keys, shared by the connections of this event loop.
    let targetCache: NIOLoopBoundBox<ReplayTargetCache>
    /// Where this connection's forwarded requests run (`EventLoopTaskExecutor`), made on first use.
    private var loopExecutor: EventLoopTaskExecutor?

    init(server: ProxyServerContext, logShard: Int = 0, targetCache: NIOLoopBoundBox<ReplayTargetCache>) {
        self.server = server
        self.logShard = logShard
        self.targetCache = targetCache
    }

    func taskExecutor(on eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        if let loopExecutor { return loopExecutor }
        let executor = EventLoopTaskExecutor(eventLoop)
        loopExecutor = executor
        return executor
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (Self.unwrapInboundIn(data), state) {
        case (.head(let head), _):
            let started = NIODeadline.now()
            let plain = InterimRequestHeaders.absent(from: head)
            if !plain, let refusal = InterimRequestHeaders.refusal(of: head) {
                state = .discarding
                send(refusal, context: context, head: head, started: started, forceClose: true)
                return
            }
            let head = plain ? head : InterimRequestHeaders.withoutH2CUpgrade(head)
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > server.settings.maxBodySize {
                rejectTooLarge(context: context, head: head, started: started)
                return
            }
            if !plain, InterimRequestHeaders.expectsContinue(head) {
                context.writeAndFlush(Self.wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
            }
            state = .receiving(head, nil, started: started)
        case (.body(var chunk), .receiving(let head, var body, let started)):
            if (body?.readableBytes ?? 0) + chunk.readableBytes > server.settings.maxBodySize {
                rejectTooLarge(context: context, head: head, started: started)
                return
            }
            if body == nil {
                body = chunk
            } else {
                body!.writeBuffer(&chunk)
            }
            state = .receiving(head, body, started: started)
        case (.end, .receiving(let head, let body, let started)):
            state = .idle
            handle(context: context, head: head, body: body, started: started)
        case (.end, .discarding):
            state = .idle
        case (.body, _), (.end, .idle):
            break
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

    private func rejectTooLarge(context: ChannelHandlerContext, head: HTTPRequestHead, started: NIODeadline) {
        state = .discarding
        let answer = ProxyAnswer.error(
            413, code: "payload_too_large",
            message: "the request body is larger than the proxy's limit of \(server.settings.maxBodySize) bytes; raise it with --max-body-size")
        send(answer, context: context, head: head, started: started, forceClose: true)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let parserError = error as? HTTPParserError {
            MalformedRequestAnswer.write(parserError, context: context)
        }
        // One broken connection never affects the others: close this one only.
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension ProxyHandler: Sendable {}
