import CassetteKernel
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// A listener's responder on one event loop, as the kernel is given it: the listener's parts
/// and the loop's replay keys (`ReplayTargetCache`). Where a request goes (`ProxyRouter`) and
/// how it is answered. A session's routes are these too (`ProxySession.route`), with the
/// session's liveness.
package final class ServingRoute: ConnectionResponder {
    package let parts: ServingResponder
    package let targetCache: NIOLoopBoundBox<ReplayTargetCache>
    /// A session's: whether it still serves. `nil` for a listener's own route.
    package let liveness: SessionLiveness?

    package init(parts: ServingResponder, targetCache: NIOLoopBoundBox<ReplayTargetCache>, liveness: SessionLiveness? = nil) {
        self.parts = parts
        self.targetCache = targetCache
        self.liveness = liveness
    }

    package var maxBodySize: Int { parts.maxBodySize }
    package var writer: AnswerWriter { parts.writer }
    package var controls: ControlTable { parts.controls }
    package var answersWebSocketsOverHTTP: Bool { parts.conversations.contains { $0.answersDeclinedHandshakesOverHTTP } }

    @inline(__always)
    package func isPlain(_ head: HTTPRequestHead) -> Bool {
        parts.plainReplayer?.isPlain(head) ?? false
    }

    package func select(_ head: HTTPRequestHead, on eventLoop: any EventLoop) -> ResponderSelection {
        var route = self
        // The forward listener: an absolute-form request is its host's (a miss, a recorded refusal, …).
        if let hosts = parts.hosts, let host = hosts.responder(for: head) {
            route = ServingRoute(parts: host, targetCache: targetCache)
        }
        let parts = route.parts
        switch Self.session(for: head, sessions: parts.sessions, listener: parts.listener, origin: parts.upstreamOrigin, on: eventLoop) {
        case .none:
            return route === self ? .this : .other(route)
        case .live(let session):
            return .other(session)
        case .unknown(let id):
            return .answer(SessionEndpoints.unknownSession(id))
        }
    }

    /// Which session a request with `head` to a listener with `parts` is for.
    package enum SessionChoice {
        /// None: the listener's own.
        case none
        /// A live session's route for this listener's upstream.
        case live(ServingRoute)
        /// `X-Cassette-Session` names no live session.
        case unknown(String)
    }

    /// The one place `X-Cassette-Session` is routed, for HTTP requests (`select`) and protocol
    /// switches (a WebSocket handshake) alike: on the main port, a session's request is answered
    /// as on the session's own port. The header keys nothing, and `ProxyRequestBuilder` never
    /// forwards (so never records) it.
    /// `sessions`: the main port's (`nil` elsewhere); `listener` and `origin`: the listener's
    /// position and upstream, which pick the session's listener for the same upstream.
    package static func session(
        for head: HTTPRequestHead, sessions: SessionRegistry?, listener: Int, origin: String?, on eventLoop: any EventLoop
    ) -> SessionChoice {
        session(id: sessions == nil ? nil : head.headers.first(name: SessionHeader.name), sessions: sessions, listener: listener, origin: origin, on: eventLoop)
    }

    /// The same for a session named by `id` (the header's value; gRPC's metadata
    /// `x-cassette-session`, an HTTP/2 stream's header), or `nil` without one.
    package static func session(id: String?, sessions: SessionRegistry?, listener: Int, origin: String?, on eventLoop: any EventLoop) -> SessionChoice {
        guard let sessions, let id else { return .none }
        guard let session = sessions.route(id, listener: listener, origin: origin, on: eventLoop), session.liveness?.isLive != false else {
            return .unknown(id)
        }
        return .live(session)
    }

    package func refusal(at head: HTTPRequestHead, on eventLoop: any EventLoop) -> ProxyAnswer? {
        for module in parts.conversations {
            if let refusal = module.refusal(for: head, on: eventLoop) { return refusal }
        }
        return nil
    }

    package func respond(to request: ConnectionRequest, plain: Bool, connection: HTTPConnection) {
        if plain {
            replay(request, plain: true, connection: connection)
            return
        }
        switch ProxyRouter.route(request.head, parts.routeContext) {
        case .replay:
            replay(request, plain: false, connection: connection)
        case .forward:
            forward(request, connection: connection)
        case .session:
            // Selected when the head came (`select`): a session's request never reaches its listener's route.
            connection.send(SessionEndpoints.unknownSession(""), to: request, writer: parts.writer)
        case .refuse(.sessionRequired):
            // A miss for the summary and --strict: the app asked for something nobody answered.
            parts.responder.session.countMiss()
            connection.send(SessionEndpoints.sessionRequired(request.head), to: request, writer: parts.writer)
        }
    }

    /// The hot path: answered on the event loop from prepared bytes; an answer that goes out as it
    /// was prepared, to an HTTP/1.1 keep-alive request, without building anything for it.
    /// A request whose pick the HTTP/2 connection made already (`replyOnConnection`) takes it.
    private func replay(_ request: ConnectionRequest, plain: Bool, connection: HTTPConnection) {
        let head = request.head
        let parts = self.parts
        let replayer = parts.replayer!
        do {
            let (pick, target) =
                try (connection.takeHandoff() as? ReplayHandoff)?.pick.get()
                ?? replayer.pick(head: head, body: request.body, plain: plain, cache: targetCache, own: Self.ownAddress(connection))
            let echoing = plain ? nil : replayer.echoingAnswer(for: pick, head: head)
            // The writer is used where it is stored: a copy would retain each of its references.
            if echoing == nil, parts.writer.writesRepliesAsPrepared, head.takesKeepAliveHead, let reply = replayer.answers.reply(for: pick) {
                parts.writer.send(
                    reply, head: head, logTarget: target.logTarget, lineTarget: target.lineTarget, started: request.started, shard: connection.logShard,
                    context: connection.context, outlet: connection.http2Outlet)
                return
            }
            let answerRequest = AnswerWriter.Request(
                head: head, started: request.started, logTarget: target.logTarget, lineTarget: target.lineTarget, key: target.keyText,
                shard: connection.logShard)
            parts.writer.send(echoing ?? replayer.answers.answer(for: pick), to: answerRequest, context: connection.context)
        } catch {
            connection.send(parts.responder.answer(for: error), to: request, writer: parts.writer)
        }
    }

    /// The replay hot path over HTTP/2, at the connection: the request is picked here, once; a
    /// pick with a prepared reply is written as the stream's frames, any other (a recording with
    /// its latency to replay, a miss) goes to the stream path as a `ReplayHandoff`, which
    /// `replay` answers as it answers its own picks. With a session's journal every answer is
    /// the stream path's (`writesRepliesAsPrepared`).
    package func replyOnConnection(to head: HTTPRequestHead, started: NIODeadline, stream: HTTP2PlainStream) -> HTTP2PlainOutcome {
        let parts = self.parts
        guard parts.writer.writesRepliesAsPrepared, let replayer = parts.plainReplayer else { return .declined }
        let picked: (ReplayIndex.Pick, target: CachedTarget)
        do {
            picked = try replayer.pick(
                head: head, body: nil, plain: true, cache: targetCache,
                own: stream.context.channel.localAddress?.port.map(OwnAddress.init(port:)))
        } catch {
            return .handedOff(ReplayHandoff(pick: .failure(error)))
        }
        guard let reply = replayer.answers.reply(for: picked.0) else { return .handedOff(ReplayHandoff(pick: .success(picked))) }
        parts.writer.send(reply, head: head, logTarget: picked.target.logTarget, lineTarget: picked.target.lineTarget, started: started, stream: stream)
        return .answered
    }

    /// A request that may go upstream: answered in a task, whole or streamed.
    private func forward(_ request: ConnectionRequest, connection: HTTPConnection) {
        let head = request.head
        let transportRequest: TransportRequest
        do {
            transportRequest = try parts.requestBuilder.transportRequest(head: head, body: request.body)
        } catch {
            connection.send(parts.responder.answer(for: error), to: request, writer: parts.writer)
            return
        }
        // Only a session's journal, and the log line of a GraphQL request (which names its
        // operation), need the key here; the session works it out again as it answers.
        let graphQLPaths = parts.responder.session.matchingRules.graphQLPaths
        let namesOperation = !graphQLPaths.isEmpty && graphQLPaths.contains(String(head.uri.prefix { $0 != "?" }))
        let own = Self.ownAddress(connection)
        let key =
            parts.writer.journal == nil && !namesOperation
            ? nil : parts.responder.session.key(for: own?.placeholding(transportRequest) ?? transportRequest).rawValue
        let responder = parts.responder
        // HEAD answers have no body to stream.
        let streams = head.method != .HEAD
        connection.later(request, key: key, writer: parts.writer) {
            await responder.answer(transportRequest, streams: streams, own: own)
        }
    }

    /// The address of the listener a connection came in on, as a client writes it into a request
    /// (`OwnAddress`): its local port.
    static func ownAddress(_ connection: HTTPConnection) -> OwnAddress? {
        connection.context.channel.localAddress?.port.map(OwnAddress.init(port:))
    }
}

/// A replay pick made at an HTTP/2 connection (`ServingRoute.replyOnConnection`) that its stream
/// answers: the recording picked and its target, or the miss. The pick counted the request
/// (replayed or missed) and moved its key's sequence on, so it is never made again.
struct ReplayHandoff: Sendable {
    let pick: Result<(ReplayIndex.Pick, target: CachedTarget), any Error>
}
