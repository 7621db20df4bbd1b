import NIOCore
import NIOHTTP1

/// One client connection: collects each request (head and body, up to the size limit), lets the
/// state machine decide what it is (refused, a control call, the responder's) and carries that
/// out. `HTTPServerPipelineHandler` in front of it delivers one request at a time, so pipelined
/// requests are answered in order, and the responder may change between requests.
package final class HTTPConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias OutboundOut = HTTPServerResponsePart

    /// The listener's responder.
    private let listenerResponder: any ConnectionResponder
    /// The one answering the request being read (`ConnectionResponder.select`).
    private var responder: any ConnectionResponder
    /// Set when the request being read is answered with this at its end whatever it asks.
    private var selectedAnswer: ProxyAnswer?
    /// This connection's event loop's request-log buffer (`RequestLog`).
    package let logShard: Int
    /// What this connection is doing: the decisions, tested on their own.
    private var machine: ProxyConnectionStateMachine
    /// Where this connection's tasks run (`EventLoopTaskExecutor`), made on first use.
    private var loopExecutor: EventLoopTaskExecutor?
    /// Set once an error answer ends the connection: what still arrives (requests pipelined
    /// behind a refused one, the decoder's complaints about them) is neither answered nor
    /// forwarded while `LingeringClose` drains it.
    private var closing = false
    /// A plain request's head (`ConnectionResponder.isPlain`) until its end, when it is answered,
    /// and when it came. Two properties, not an optional tuple, which the runtime copies and
    /// destroys through its generic metadata (`perf`).
    private var plainHead: HTTPRequestHead?
    private var plainStarted = NIODeadline.uptimeNanoseconds(0)

    /// The protocol switches' ways to say an error is an upgrade they declined.
    private let declines: [@Sendable (any Error) -> Bool]
    /// The listener's HTTP/2 stream switches, on an HTTP/1.1 connection: a request one of them
    /// would take over HTTP/2 (gRPC) is refused here rather than answered as an ordinary one.
    private let streamSwitches: HTTP2StreamSwitches
    /// On an HTTP/2 stream: where prepared replies are written as frames.
    let http2Outlet: HTTP2ReplyOutlet?
    /// On an HTTP/2 stream whose request the connection's `HTTP2PlainReplies` offered its
    /// responder: what the responder made for it there, for its `respond` (`takeHandoff()`).
    private var handoff: (any Sendable)?

    package init(
        responder: any ConnectionResponder, logShard: Int = 0, switches: ProtocolSwitches = .none, streamSwitches: HTTP2StreamSwitches = .none,
        http2Outlet: HTTP2ReplyOutlet? = nil, handoff: (any Sendable)? = nil
    ) {
        self.http2Outlet = http2Outlet
        self.handoff = handoff
        declines = switches.switches.isEmpty ? [] : switches.switches.map(\.isDecline)
        self.streamSwitches = streamSwitches
        listenerResponder = responder
        self.responder = responder
        self.logShard = logShard
        machine = ProxyConnectionStateMachine(
            maxBodySize: responder.maxBodySize, answersWebSocketsOverHTTP: responder.answersWebSocketsOverHTTP, controls: responder.controls)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            // The replay hot path: a plain request has no body and no state to keep until its
            // end, and nothing to route (`isPlain` holds for none that another responder takes).
            if listenerResponder.isPlain(head) {
                if responder !== listenerResponder { use(listenerResponder) }
                selectedAnswer = nil
                plainHead = head
                plainStarted = .now()
                return
            }
            select(for: head, context: context)
            if selectedAnswer == nil, responder !== listenerResponder, responder.isPlain(head) {
                plainHead = head
                plainStarted = .now()
                return
            }
            if head.headers.contains(name: "upgrade"), let refusal = responder.refusal(at: head, on: context.eventLoop) {
                machine.discardRequest()
                send(refusal, head: head, started: .now(), forceClose: true, writer: responder.writer, context: context)
                return
            }
            if !streamSwitches.isEmpty, let refusal = streamSwitches.refusalOverHTTP1(head) {
                machine.discardRequest()
                closing = true
                send(refusal, head: head, started: .now(), forceClose: true, writer: responder.writer, context: context)
                return
            }
            perform(machine.head(head, now: .now()).action, context: context)
        case .body(let chunk):
            perform(machine.body(chunk), context: context)
        case .end:
            if let head = plainHead {
                plainHead = nil
                responder.respond(to: ConnectionRequest(head: head, body: nil, started: plainStarted), plain: true, connection: connection(context))
                return
            }
            perform(machine.end(), context: context)
        }
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // An upgrader declined the switch (a WebSocket handshake with no conversation to serve):
        // the request comes next and is answered over HTTP.
        if declines.contains(where: { $0(error) }) { return }
        // One broken connection never affects the others: this one closes, after a 400 for a
        // request that is not HTTP/1.1.
        guard !closing else { return }
        perform(machine.error(error), context: context)
    }

    /// Settles who answers the request whose head came; the machine follows its limits and table.
    private func select(for head: HTTPRequestHead, context: ChannelHandlerContext) {
        selectedAnswer = nil
        let chosen: any ConnectionResponder
        switch listenerResponder.select(head, on: context.eventLoop) {
        case .this:
            chosen = listenerResponder
        case .other(let other):
            chosen = other
        case .answer(let answer):
            chosen = listenerResponder
            selectedAnswer = answer
        }
        if chosen !== responder { use(chosen) }
    }

    private func use(_ chosen: any ConnectionResponder) {
        responder = chosen
        machine.maxBodySize = chosen.maxBodySize
        machine.answersWebSocketsOverHTTP = chosen.answersWebSocketsOverHTTP
        machine.controls = chosen.controls
    }

    private func perform(_ action: ProxyConnectionStateMachine.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .sendContinue(let version):
            context.writeAndFlush(Self.wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .continue))), promise: nil)
        case .refuse(.interim(let decision), let head, let started):
            if let refusal = InterimRequestHeaders.refusal(decision) {
                closing = true
                send(refusal, head: head, started: started, forceClose: true, writer: responder.writer, context: context)
            }
        case .refuse(.tooLarge, let head, let started):
            let answer = ProxyAnswer.error(
                413, code: "payload_too_large",
                message: "the request body is larger than the proxy's limit of \(machine.maxBodySize) bytes; raise it with --max-body-size")
            closing = true
            send(answer, head: head, started: started, forceClose: true, writer: responder.writer, context: context)
        case .answer(let head, let body, let started, let route):
            answer(ConnectionRequest(head: head, body: body, started: started), route: route, context: context)
        case .rejectMalformed(let error):
            closing = true
            let log = responder.writer.log
            let peer = context.channel.remoteAddress.map { " from \($0)" } ?? ""
            log.warn(log.labelled("400 to a connection\(peer) that speaks neither HTTP/1.1 nor HTTP/2 (\(error)); closed it"), shard: logShard)
            MalformedRequestAnswer.write(error, context: context)
            LingeringClose.start(context)
        case .close:
            closing = true
            LingeringClose.start(context)
        }
    }

    /// Carries out a complete request's route.
    private func answer(_ request: ConnectionRequest, route: ProxyConnectionStateMachine.Route, context: ChannelHandlerContext) {
        let writer = responder.writer
        if let selected = selectedAnswer {
            selectedAnswer = nil
            send(selected, head: request.head, started: request.started, writer: writer, context: context)
            return
        }
        switch route {
        case .responder:
            responder.respond(to: request, plain: false, connection: connection(context))
        case .control(.refuse(let refusal)):
            send(refusal.answer, head: request.head, started: request.started, writer: writer, context: context)
        case .control(.endpoint(_, let endpoint)):
            switch endpoint.answer(ControlRequest(head: request.head, body: request.body, localAddress: context.channel.localAddress)) {
            case .now(let answer):
                send(answer, head: request.head, started: request.started, writer: writer, context: context)
            case .later(let make):
                later(head: request.head, started: request.started, writer: writer, context: context, make)
            case .stream(let head, let follow):
                // The stream stays open: this connection answers nothing else (a browser gives an
                // EventSource a connection of its own).
                context.writeAndFlush(Self.wrapOutboundOut(.head(head)), promise: nil)
                follow(context.channel)
            }
        }
    }

    /// Answers in a task on this connection's event loop (a forwarded request, a control call
    /// that reads the store); the answer is written whole or, when it streams, as it arrives.
    func later(
        head: HTTPRequestHead, started: NIODeadline, key: String? = nil, writer: AnswerWriter, context: ChannelHandlerContext,
        _ make: @escaping @Sendable () async -> ProxyAnswer
    ) {
        let promise = context.eventLoop.makePromise(of: ProxyAnswer.self)
        Task(executorPreference: taskExecutor(on: context.eventLoop)) {
            promise.succeed(await make())
        }
        let boundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        promise.futureResult.whenSuccess { answer in
            boundSelf.value.send(answer, head: head, started: started, key: key, writer: writer, context: boundContext.value)
        }
    }

    func send(
        _ answer: ProxyAnswer, head: HTTPRequestHead, started: NIODeadline, key: String? = nil, forceClose: Bool = false, writer: AnswerWriter,
        context: ChannelHandlerContext
    ) {
        let request = AnswerWriter.Request(head: head, started: started, key: key ?? answer.miss?.miss.key, shard: logShard)
        writer.send(answer, to: request, forceClose: forceClose, context: context)
    }

    func takeHandoff() -> (any Sendable)? {
        defer { handoff = nil }
        return handoff
    }

    private func taskExecutor(on eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        if let loopExecutor { return loopExecutor }
        let executor = EventLoopTaskExecutor(eventLoop)
        loopExecutor = executor
        return executor
    }
}

@available(*, unavailable)
extension HTTPConnectionHandler: Sendable {}
