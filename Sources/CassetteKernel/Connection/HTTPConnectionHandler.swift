import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOWebSocket
import WellPlateCore
import WellPlateNetworking

/// One client connection: collects each request (head and body, up to the size limit), finds its
/// answer and hands it to the writer. `HTTPServerPipelineHandler` in front of it delivers one
/// request at a time, so pipelined requests are answered in order.
final class ProxyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What the connections of one proxy are given, each part with one job. A class, made once
    /// per listener: a request hands on one reference instead of copying a few dozen (as a struct
    /// it was copied per request, about 3% of a replay proxy's samples in `perf`).
    final class Parts: Sendable {
        /// Set for a replay-only proxy, which answers every request on the event loop.
        let replayer: ProxyReplayer?
        /// Answers requests that may go upstream, in a task.
        let responder: ProxyResponder
        let requestBuilder: ProxyRequestBuilder
        let endpoints: ProxyEndpoints
        let writer: AnswerWriter
        let maxBodySize: Int
        /// The main port's sessions (`/__cassette/sessions`, `X-Cassette-Session`); `nil` on a
        /// session's own port.
        let sessions: SessionRegistry?
        /// The listener's position among the proxy's (one per upstream): a request routed to a
        /// session by `X-Cassette-Session` is served as the session's listener for the same upstream.
        let listener: Int
        /// `scheme://host[:port]` of the upstream this listener stands in for: a session
        /// laid out in another order still routes a request to its listener for the same host.
        let upstreamOrigin: String?
        /// `--sessions-only`: the main port answers only requests for a session and the
        /// endpoints; its own cassette is not served.
        let sessionsOnly: Bool
        /// The web UI (`/__cassette/ui/`), on the main port.
        let ui: UIEndpoints?
        /// WebSocket conversations, where the listener offers them: a handshake its upgrader
        /// declined is an ordinary request, or refused here when the client does not offer the
        /// recorded subprotocol.
        let webSockets: WebSocketService?
        /// What routing needs to know of a connection with these parts.
        let routeContext: RouteContext
        /// Set where a plain request (`ProxyReplayer.isPlain`) can only be replayed: a replay-only
        /// listener that is not `--sessions-only`. Such a request skips the state machine and routing.
        let plainReplayer: ProxyReplayer?

        init(
            replayer: ProxyReplayer?, responder: ProxyResponder, requestBuilder: ProxyRequestBuilder, endpoints: ProxyEndpoints, writer: AnswerWriter,
            maxBodySize: Int, sessions: SessionRegistry? = nil, listener: Int = 0, upstreamOrigin: String? = nil, sessionsOnly: Bool = false,
            ui: UIEndpoints? = nil, webSockets: WebSocketService? = nil
        ) {
            self.replayer = replayer
            self.responder = responder
            self.requestBuilder = requestBuilder
            self.endpoints = endpoints
            self.writer = writer
            self.maxBodySize = maxBodySize
            self.sessions = sessions
            self.listener = listener
            self.upstreamOrigin = upstreamOrigin
            self.sessionsOnly = sessionsOnly
            self.ui = ui
            self.webSockets = webSockets
            routeContext = RouteContext(hasSessions: sessions != nil, sessionsOnly: sessionsOnly, replaysOnly: replayer != nil)
            plainReplayer = sessionsOnly ? nil : replayer
        }
    }

    private(set) var parts: Parts
    /// On a forward proxy's own listener: the parts for each absolute-form request's host.
    let forward: ForwardRouter?
    /// This connection's event loop's request-log buffer (`RequestLog`).
    let logShard: Int
    /// What this connection is doing: the decisions, tested on their own.
    private var machine: ProxyConnectionStateMachine
    /// The replay hot path's keys, shared by the connections of this event loop.
    let targetCache: NIOLoopBoundBox<ReplayTargetCache>
    /// The session this connection's last `X-Cassette-Session` request went to: a test's app
    /// sends every request with the same id, so the registry is asked once per connection.
    private var sessionRoute: SessionRoute?
    private var sessionRouteID: String?
    /// The host the kept route serves: a forward proxy's plain-HTTP connection may ask several.
    private var sessionRouteOrigin: String?
    /// Where this connection's forwarded requests run (`EventLoopTaskExecutor`), made on first use.
    private var loopExecutor: EventLoopTaskExecutor?
    /// Set once an error answer ends the connection: what still arrives (requests pipelined
    /// behind a refused one, the decoder's complaints about them) is neither answered nor
    /// forwarded while `LingeringClose` drains it.
    private var closing = false
    /// A plain request's head (`ProxyReplayer.isPlain`) until its end, when it is replayed, and
    /// when it came. Two properties, not an optional tuple, which the runtime copies and destroys
    /// through its generic metadata (`perf`).
    private var plainHead: HTTPRequestHead?
    private var plainStarted = NIODeadline.uptimeNanoseconds(0)

    init(parts: Parts, logShard: Int = 0, targetCache: NIOLoopBoundBox<ReplayTargetCache>, forward: ForwardRouter? = nil) {
        self.parts = parts
        self.forward = forward
        self.logShard = logShard
        self.targetCache = targetCache
        machine = ProxyConnectionStateMachine(maxBodySize: parts.maxBodySize, answersWebSocketsOverHTTP: parts.webSockets != nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            // One request at a time reaches this handler (`HTTPServerPipelineHandler`), so the
            // parts can change between requests.
            if let forward {
                parts = forward.parts(for: head)
                // A handshake in absolute form that its host's upgrader declined is that host's
                // HTTP request (a miss, a recorded refusal), as one through CONNECT is.
                machine.answersWebSocketsOverHTTP = parts.webSockets != nil
            }
            // The replay hot path: a plain request has no body and no state to keep until its end.
            if let replayer = parts.plainReplayer, replayer.isPlain(head) {
                plainHead = head
                plainStarted = .now()
                return
            }
            if parts.webSockets != nil, head.headers.contains(name: "upgrade"),
                let refusal = parts.webSockets?.serving(head, on: context.eventLoop)?.refusal(for: head)
            {
                machine.discardRequest()
                send(refusal, head: head, started: .now(), forceClose: true, writer: parts.writer, context: context)
                return
            }
            perform(machine.head(head, now: .now()).action, context: context)
        case .body(let chunk):
            perform(machine.body(chunk), context: context)
        case .end:
            if let head = plainHead {
                plainHead = nil
                replay(head: head, body: nil, plain: true, started: plainStarted, parts: parts, cache: targetCache, context: context)
                return
            }
            perform(machine.end(), context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The WebSocket upgrader declined the handshake (no conversation to serve, no key): the
        // request comes next and is answered over HTTP.
        if error is NIOWebSocketUpgradeError { return }
        // One broken connection never affects the others: this one closes, after a 400 for a
        // request that is not HTTP/1.1.
        guard !closing else { return }
        perform(machine.error(error), context: context)
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
                send(refusal, head: head, started: started, forceClose: true, writer: parts.writer, context: context)
            }
        case .refuse(.tooLarge, let head, let started):
            let answer = ProxyAnswer.error(
                413, code: "payload_too_large",
                message: "the request body is larger than the proxy's limit of \(parts.maxBodySize) bytes; raise it with --max-body-size")
            closing = true
            send(answer, head: head, started: started, forceClose: true, writer: parts.writer, context: context)
        case .answer(let head, let body, let started):
            answer(head: head, body: body, started: started, context: context)
        case .rejectMalformed(let error):
            closing = true
            MalformedRequestAnswer.write(error, context: context)
            LingeringClose.start(context)
        case .close:
            closing = true
            LingeringClose.start(context)
        }
    }

    private func answer(head: HTTPRequestHead, body: ByteBuffer?, started: NIODeadline, context: ChannelHandlerContext) {
        answer(head: head, body: body, started: started, parts: parts, cache: targetCache, context: context)
    }

    /// Carries out the request's route (`ProxyRouter`) with `parts`: this listener's, or a session's.
    private func answer(
        head: HTTPRequestHead, body: ByteBuffer?, started: NIODeadline, parts: Parts, cache: NIOLoopBoundBox<ReplayTargetCache>,
        context: ChannelHandlerContext
    ) {
        switch ProxyRouter.route(head, parts.routeContext) {
        case .replay:
            replay(head: head, body: body, started: started, parts: parts, cache: cache, context: context)
        case .forward:
            forward(head: head, body: body, started: started, parts: parts, context: context)
        case .session(let id):
            // A session's request on the main port: answered as on the session's own port. The
            // header keys nothing, and `ProxyRequestBuilder` never forwards (so never records) it.
            guard let route = sessionRoute(id, context: context) else {
                send(SessionEndpoints.unknownSession(id), head: head, started: started, writer: parts.writer, context: context)
                return
            }
            answer(head: head, body: body, started: started, parts: route.parts, cache: route.targetCache, context: context)
        case .control(.sessions):
            guard let sessions = parts.sessions else { return }
            let proxyBase = ProxyBase.of(head, localAddress: context.channel.localAddress)
            later(head: head, started: started, writer: parts.writer, context: context) {
                await sessions.answer(head: head, body: body, proxyBase: proxyBase)
            }
        case .control(.ui):
            guard let ui = parts.ui else {
                send(parts.endpoints.answer(for: .ui), head: head, started: started, writer: parts.writer, context: context)
                return
            }
            switch ui.decide(head) {
            case .answer(let answer):
                send(answer, head: head, started: started, writer: parts.writer, context: context)
            case .later(let make):
                later(head: head, started: started, writer: parts.writer, context: context, make)
            case .follow(let live):
                // The stream stays open: this connection answers nothing else (a browser gives an
                // EventSource a connection of its own).
                context.writeAndFlush(Self.wrapOutboundOut(.head(UIEndpoints.eventStreamHead(for: head))), promise: nil)
                live.follow(context.channel)
            case .sessions:
                send(UIEndpoints.sessionsAnswer(parts.sessions), head: head, started: started, writer: parts.writer, context: context)
            }
        case .control(let endpoint):
            send(parts.endpoints.answer(for: endpoint), head: head, started: started, writer: parts.writer, context: context)
        case .refuse(.control(let refusal)):
            send(refusal.answer, head: head, started: started, writer: parts.writer, context: context)
        case .refuse(.sessionRequired):
            // A miss for the summary and --strict: the app asked for something nobody answered.
            parts.responder.session.countMiss()
            send(SessionEndpoints.sessionRequired(head), head: head, started: started, writer: parts.writer, context: context)
        }
    }

    /// The hot path: answered on the event loop from prepared bytes; an answer that goes out as it
    /// was prepared, to an HTTP/1.1 keep-alive request, without building anything for it.
    private func replay(
        head: HTTPRequestHead, body: ByteBuffer?, plain: Bool = false, started: NIODeadline, parts: Parts, cache: NIOLoopBoundBox<ReplayTargetCache>,
        context: ChannelHandlerContext
    ) {
        let replayer = parts.replayer!
        do {
            let (pick, target) = try replayer.pick(head: head, body: body, plain: plain, cache: cache)
            if parts.writer.writesRepliesAsPrepared, head.version == .http1_1, head.isKeepAlive, let reply = replayer.answers.reply(for: pick) {
                parts.writer.send(reply, head: head, target: target, started: started, shard: logShard, context: context)
                return
            }
            let request = AnswerWriter.Request(
                head: head, started: started, logTarget: target.logTarget, lineTarget: target.lineTarget, key: target.keyText, shard: logShard)
            parts.writer.send(replayer.answers.answer(for: pick), to: request, context: context)
        } catch {
            send(parts.responder.answer(for: error), head: head, started: started, writer: parts.writer, context: context)
        }
    }

    /// The session `id` routes to from this listener; the connection keeps it while the id and
    /// the host stay the same and the session lives (a test's app sends every request with one id).
    private func sessionRoute(_ id: String, context: ChannelHandlerContext) -> SessionRoute? {
        if let kept = sessionRoute, sessionRouteID == id, sessionRouteOrigin == parts.upstreamOrigin, kept.liveness.isLive {
            return kept
        }
        guard let sessions = parts.sessions, let found = sessions.route(id, listener: parts.listener, origin: parts.upstreamOrigin, on: context.eventLoop)
        else {
            sessionRoute = nil
            sessionRouteID = nil
            return nil
        }
        sessionRoute = found
        sessionRouteID = id
        sessionRouteOrigin = parts.upstreamOrigin
        return found
    }

    /// A request that may go upstream: answered in a task, whole or streamed.
    private func forward(head: HTTPRequestHead, body: ByteBuffer?, started: NIODeadline, parts: Parts, context: ChannelHandlerContext) {
        let request: TransportRequest
        do {
            request = try parts.requestBuilder.transportRequest(head: head, body: body)
        } catch {
            send(parts.responder.answer(for: error), head: head, started: started, writer: parts.writer, context: context)
            return
        }
        // Only a session's journal, and the log line of a GraphQL request (which names its
        // operation), need the key here; the session works it out again as it answers.
        let graphQLPaths = parts.responder.session.matchingRules.graphQLPaths
        let namesOperation = !graphQLPaths.isEmpty && graphQLPaths.contains(String(head.uri.prefix { $0 != "?" }))
        let key = parts.writer.journal == nil && !namesOperation ? nil : parts.responder.session.key(for: request).rawValue
        let responder = parts.responder
        // HEAD answers have no body to stream.
        let streams = head.method != .HEAD
        later(head: head, started: started, key: key, writer: parts.writer, context: context) {
            await responder.answer(request, streams: streams)
        }
    }

    /// Answers in a task on this connection's event loop (a forwarded request, a session
    /// endpoint); the answer is written whole or, when it streams, as it arrives.
    private func later(
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

    private func send(
        _ answer: ProxyAnswer, head: HTTPRequestHead, started: NIODeadline, logTarget: String? = nil, key: String? = nil, forceClose: Bool = false,
        writer: AnswerWriter, context: ChannelHandlerContext
    ) {
        let request = AnswerWriter.Request(head: head, started: started, logTarget: logTarget, key: key ?? answer.miss?.miss.key, shard: logShard)
        writer.send(answer, to: request, forceClose: forceClose, context: context)
    }

    private func taskExecutor(on eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        if let loopExecutor { return loopExecutor }
        let executor = EventLoopTaskExecutor(eventLoop)
        loopExecutor = executor
        return executor
    }
}

@available(*, unavailable)
extension ProxyHandler: Sendable {}
