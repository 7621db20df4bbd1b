import CassetteKernel
import Foundation
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// The handlers of one connection to a listener serving a cassette, in order, and the parts they
/// are given: the kernel's HTTP pipeline with the protocol switches the modules registered, then
/// the kernel's handler with this listener's `ServingRoute` for the connection's event loop. The
/// server and the tests (over an `EmbeddedChannel`) set connections up the same way.
package struct ServingPipeline: ConnectionPipeline {
    package private(set) var parts: ServingResponder
    /// Whether connections need `RawHeaderBytesHandler`: a replay-only proxy whose recordings'
    /// headers are all UTF-8 does without it (one handler fewer on every write).
    package let restoresRawHeaderBytes: Bool
    /// Whether connections need `RequestHeadBytesHandler`: request header bytes matter only when
    /// they go upstream or could match a key. A replay-only proxy whose keys are all ASCII does
    /// without it (two handlers fewer on every request): a head that is not UTF-8 keys to the same
    /// recording there, or to none, whether its bytes are kept or read as U+FFFD.
    package let keepsRequestHeadBytes: Bool
    /// The protocol switches its connections offer: WebSocket on reverse and session listeners and
    /// on a forward host's pipeline inside a CONNECT tunnel.
    package var switches = ProtocolSwitches.none
    /// HTTP/2 beside HTTP/1.1 on the listener's port (prior knowledge), with the stream switches
    /// its modules offer (gRPC); `nil`: HTTP/1.1 only.
    package var http2: HTTP2Serving? = HTTP2Serving()

    /// A listener serving `served` with `settings` (its upstream and TLS). `maker` makes its
    /// recordings into answers. `sessions`: the main port's sessions; `journal` and `logLabel`
    /// (`session ID`, ending its request lines): set for a session's own pipeline. `listener`:
    /// its position among the proxy's listeners (one per upstream).
    package init(
        served: ServedCassette, settings: ProxySettings, maker: ReplayAnswerMaker, recordsForwarded: Bool = true, sessions: SessionRegistry? = nil,
        journal: SessionJournal? = nil, logLabel: String? = nil, listener: Int = 0
    ) {
        let session = served.session
        let replayOnly = session.options.policy.isReplayOnly
        let redactor = session.options.redactor
        // A multi-host cassette's keys start with their origin, and so do its log lines.
        let keysIncludeOrigin = session.matchingRules.includeHost
        var requestBuilder = ProxyRequestBuilder(upstream: settings.upstream, keysIncludeOrigin: keysIncludeOrigin)
        requestBuilder.refusesOriginForm = settings.forward != nil && settings.upstream == nil
        requestBuilder.consumesProxyCredentials = settings.forward != nil
        var log = ProxyLog(requestLog: served.context.requestLog, stalePolicy: settings.stalePolicy, logger: served.context.logger, label: logLabel)
        if keysIncludeOrigin, let origin = settings.upstream.flatMap(CassetteInfo.origin(of:)) { log.targetPrefix = origin }
        let upstreamOrigin = settings.upstream.flatMap(CassetteInfo.origin(of:))
        // Conversations (WebSocket) wherever the pipeline serves one upstream: reverse and session
        // listeners, and the forward proxy's pipeline for a host, inside a CONNECT tunnel or for a
        // handshake in absolute form sent to the forward listener.
        var conversations: [any ConversationServing] = []
        var streamSwitches = HTTP2StreamSwitches.none
        let liveSession = logLabel.map { $0.hasPrefix("session ") ? String($0.dropFirst(8)) : $0 }
        if settings.forward == nil || settings.upstream != nil {
            var described = ServingListener(
                session: session, conversations: served.conversations, requestBuilder: requestBuilder, settings: settings, log: log,
                writers: served.context.conversationWriters, journal: journal, sessions: sessions, listener: listener, upstreamOrigin: upstreamOrigin)
            described.live = served.context.live
            described.liveSession = liveSession
            for module in served.context.protocols {
                if let streams = module.offerStreams(on: described) { streamSwitches = streamSwitches.registering(streams) }
                guard let offered = module.offer(on: described) else { continue }
                switches = switches.registering(offered.switch)
                conversations.append(offered.service)
            }
        }
        // The main port names what the proxy does (its sessions inherit it), also when
        // `--sessions-only` leaves its own cassette replay-only.
        let endpoints = ProxyEndpoints(
            session: session, policy: sessions?.configuration.policy ?? session.options.policy, started: .now,
            insecure: settings.tls.insecure && !replayOnly)
        let controls = ControlTable(
            routes: ServingControls.routes(endpoints, sessions: sessions)
                + (sessions == nil ? served.context.sessionPortControls : served.context.mainPortControls))
        parts = ServingResponder(
            replayer: replayOnly ? ProxyReplayer(session: session, answers: served.prepared, requestBuilder: requestBuilder) : nil,
            responder: ProxyResponder(
                session: session, settings: settings, replays: maker, upstreamDescription: settings.upstream.map { redactor.redact(url: $0) },
                recordsForwarded: recordsForwarded, log: log),
            requestBuilder: requestBuilder,
            writer: AnswerWriter(
                log: log, namer: KeyerNaming(keyer: session.keyer), upstreamURLs: OwnAddressRewriter(upstreamURLs: maker.upstreamURLs), journal: journal,
                live: served.context.live,
                liveSession: liveSession),
            maxBodySize: settings.maxBodySize, controls: controls, sessions: sessions, listener: listener, upstreamOrigin: upstreamOrigin,
            sessionsOnly: settings.sessionsOnly && sessions != nil, conversations: conversations, streamSwitches: streamSwitches)
        http2 = HTTP2Serving(streamSwitches: streamSwitches)
        restoresRawHeaderBytes = !replayOnly || served.prepared.hasRawHeaderBytes
        keepsRequestHeadBytes = !replayOnly || !session.index.loadedKeysAreASCII
    }

    /// The same pipeline answering with `parts` (a forward listener's, routing by host).
    package func answering(with parts: ServingResponder) -> ServingPipeline {
        var pipeline = self
        pipeline.parts = parts
        return pipeline
    }

    package func configure(_ pipeline: ChannelPipeline.SynchronousOperations, loop: ConnectionLoop) throws {
        let parts = self.parts
        let route = loop.storage.value { ServingRoute(parts: parts, targetCache: .makeBoxSendingValue(ReplayTargetCache(), eventLoop: pipeline.eventLoop)) }
        guard let http2 else {
            try configure(pipeline, route: route, logShard: loop.logShard, extraHandlers: [])
            return
        }
        try HTTPPipeline.configure(pipeline, http2: http2, responder: route, loop: loop) { operations in
            try configure(operations, route: route, logShard: loop.logShard, extraHandlers: [])
        }
    }

    /// Sets a connection up behind TLS that cassette terminates (an intercepted tunnel), which
    /// offered ALPN `h2` and `http/1.1` (`HTTPPipeline.alpnProtocols`): HTTP/2 or HTTP/1.1 as the
    /// client chose.
    package func configureAfterTLS(_ pipeline: ChannelPipeline.SynchronousOperations, route: ServingRoute, logShard: Int) throws {
        guard let http2 else {
            try configure(pipeline, route: route, logShard: logShard, extraHandlers: [])
            return
        }
        let loop = ConnectionLoop(logShard: logShard, storage: LoopStorage(on: pipeline.eventLoop))
        try HTTPPipeline.configureAfterALPN(pipeline, http2: http2, responder: route, loop: loop) { operations in
            try configure(operations, route: route, logShard: logShard, extraHandlers: [])
        }
    }

    /// A plain connection inside a tunnel (`ws://`, `http://` through CONNECT): HTTP/1.1, or
    /// HTTP/2 with prior knowledge, as its first bytes say.
    package func configurePlain(_ pipeline: ChannelPipeline.SynchronousOperations, route: ServingRoute, logShard: Int) throws {
        guard let http2 else {
            try configure(pipeline, route: route, logShard: logShard, extraHandlers: [])
            return
        }
        let loop = ConnectionLoop(logShard: logShard, storage: LoopStorage(on: pipeline.eventLoop))
        try HTTPPipeline.configure(pipeline, http2: http2, responder: route, loop: loop) { operations in
            try configure(operations, route: route, logShard: logShard, extraHandlers: [])
        }
    }

    /// Sets a connection up with `route`, after `extraHandlers` (the forward listener's CONNECT).
    package func configure(
        _ pipeline: ChannelPipeline.SynchronousOperations, route: ServingRoute, logShard: Int, extraHandlers: [any ChannelHandler],
        switches extra: ProtocolSwitches? = nil
    ) throws {
        let switches = extra ?? self.switches
        try HTTPPipeline.configure(
            pipeline, restoresRawHeaderBytes: restoresRawHeaderBytes, keepsRequestHeadBytes: keepsRequestHeadBytes, switches: switches,
            handlers: extraHandlers + [
                HTTPConnectionHandler(responder: route, logShard: logShard, switches: switches, streamSwitches: http2?.streamSwitches ?? .none)
            ])
    }
}

/// A listener serving a cassette as a protocol module sees it, to serve its conversations there.
package struct ServingListener: Sendable {
    package let session: CassetteSession
    package let conversations: RecordedConversations
    package let requestBuilder: ProxyRequestBuilder
    package let settings: ProxySettings
    package let log: ProxyLog
    /// The proxy's recorders' writing tasks, awaited before its store closes.
    package let writers: ConversationWriters
    /// A session's journal, on a session's listener.
    package let journal: SessionJournal?
    /// The main port's sessions: a handshake with `X-Cassette-Session` is the session's.
    package let sessions: SessionRegistry?
    package let listener: Int
    package let upstreamOrigin: String?
    /// The UI's Live view, told of each call a module answers on its own (gRPC).
    package var live: (any AnswerFeed)? = nil
    /// The session's id on a session's listener, as the Live view tags its events.
    package var liveSession: String? = nil
}

/// A module serving conversations over a protocol switch (WebSocket) or over HTTP/2 streams it
/// takes (gRPC), registered in the served cassette's context (`ProxyModules.swift`): every
/// listener serving a cassette offers it.
package protocol ServingProtocol: Sendable {
    /// The `Upgrade` switch and the service that `listener` offers; `nil` where it offers none.
    func offer(on listener: ServingListener) -> (switch: ProtocolSwitches.Switch, service: any ConversationServing)?
    /// The HTTP/2 stream switch that `listener` offers (`HTTP2StreamSwitches` has the contract);
    /// `nil` where it offers none. Over HTTP/1.1, requests it would take are refused (505).
    func offerStreams(on listener: ServingListener) -> HTTP2StreamSwitches.Switch?
    /// The proxy stops and its listeners have drained: what the module keeps open (upstream
    /// connections, their timers) closes before the event loops stop.
    func shutdown() async
}

extension ServingProtocol {
    package func offer(on listener: ServingListener) -> (switch: ProtocolSwitches.Switch, service: any ConversationServing)? { nil }
    package func offerStreams(on listener: ServingListener) -> HTTP2StreamSwitches.Switch? { nil }
    package func shutdown() async {}
}

/// Names a request in its log line by the keyer's rules.
struct KeyerNaming: RequestNaming {
    let keyer: ReplayKeyer

    func logTarget(of head: HTTPRequestHead) -> String {
        keyer.logTarget(of: head)
    }
}
