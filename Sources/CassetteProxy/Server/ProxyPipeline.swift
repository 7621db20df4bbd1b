import Foundation
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// The handlers of one client connection, in order, and the parts they are given. The server and
/// the tests (over an `EmbeddedChannel`) set connections up the same way.
struct ProxyPipeline: ConnectionPipeline {
    private(set) var parts: ProxyHandler.Parts
    /// Whether connections need `RawHeaderBytesHandler`: a replay-only proxy whose recordings'
    /// headers are all UTF-8 does without it (one handler fewer on every write).
    let restoresRawHeaderBytes: Bool
    /// Whether connections need `RequestHeadBytesHandler`: request header bytes matter only when
    /// they go upstream or could match a key. A replay-only proxy whose keys are all ASCII does
    /// without it (two handlers fewer on every request): a head that is not UTF-8 keys to the same
    /// recording there, or to none, whether its bytes are kept or read as U+FFFD.
    let keepsRequestHeadBytes: Bool
    /// The protocol switches its connections offer: WebSocket on reverse and session listeners and
    /// on a forward host's pipeline inside a CONNECT tunnel.
    var upgrades = UpgradeHook.none

    /// A listener serving `served` with `settings` (its upstream and TLS). `maker` makes its
    /// recordings into answers. `sessions`: the main port's sessions; `journal` and `logLabel`
    /// (`session ID`, ending its request lines): set for a session's own pipeline. `listener`:
    /// its position among the proxy's listeners (one per upstream).
    init(
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
        // WebSocket wherever the pipeline serves one upstream: reverse and session listeners, and
        // the forward proxy's pipeline for a host, inside a CONNECT tunnel (`wss://`) or for a
        // handshake in absolute form sent to the forward listener (`ForwardWebSocketUpgrade`).
        var webSockets: WebSocketService?
        if settings.forward == nil || settings.upstream != nil {
            let service = WebSocketService(
                session: session, conversations: served.conversations, requestBuilder: requestBuilder, settings: settings, log: log,
                writers: served.context.conversationWriters, journal: journal, sessions: sessions, listener: listener,
                upstreamOrigin: settings.upstream.flatMap(CassetteInfo.origin(of:)))
            webSockets = service
            upgrades = service.hook
        }
        parts = ProxyHandler.Parts(
            replayer: replayOnly ? ProxyReplayer(session: session, answers: served.prepared, requestBuilder: requestBuilder) : nil,
            responder: ProxyResponder(
                session: session, settings: settings, replays: maker, upstreamDescription: settings.upstream.map { redactor.redact(url: $0) },
                recordsForwarded: recordsForwarded, log: log),
            requestBuilder: requestBuilder,
            // The main port names what the proxy does (its sessions inherit it), also when
            // `--sessions-only` leaves its own cassette replay-only.
            endpoints: ProxyEndpoints(
                session: session, policy: sessions?.configuration.policy ?? session.options.policy, started: .now,
                insecure: settings.tls.insecure && !replayOnly),
            writer: AnswerWriter(
                log: log, keyer: session.keyer, upstreamURLs: maker.upstreamURLs, journal: journal, live: served.context.live,
                liveSession: logLabel.map { $0.hasPrefix("session ") ? String($0.dropFirst(8)) : $0 }),
            maxBodySize: settings.maxBodySize, sessions: sessions, listener: listener,
            upstreamOrigin: settings.upstream.flatMap(CassetteInfo.origin(of:)), sessionsOnly: settings.sessionsOnly && sessions != nil,
            ui: sessions == nil ? nil : served.context.ui, webSockets: webSockets)
        restoresRawHeaderBytes = !replayOnly || served.prepared.hasRawHeaderBytes
        keepsRequestHeadBytes = !replayOnly || !session.index.loadedKeysAreASCII
    }

    func configure(_ pipeline: ChannelPipeline.SynchronousOperations, logShard: Int, targetCache: NIOLoopBoundBox<ReplayTargetCache>) throws {
        try Self.configureHTTP(
            pipeline, restoresRawHeaderBytes: restoresRawHeaderBytes, keepsRequestHeadBytes: keepsRequestHeadBytes, upgrades: upgrades,
            handlers: [ProxyHandler(parts: parts, logShard: logShard, targetCache: targetCache)])
    }

    /// The one HTTP/1.1 server pipeline of every connection the proxy serves (reverse and session
    /// listeners, CONNECT tunnels after TLS, the forward listener): the byte-exact header
    /// handlers where they are needed, NIO's HTTP server handlers with pipelining assistance and
    /// `upgrades`, then `handlers`.
    static func configureHTTP(
        _ pipeline: ChannelPipeline.SynchronousOperations, restoresRawHeaderBytes: Bool, keepsRequestHeadBytes: Bool, upgrades: UpgradeHook,
        handlers: [any ChannelHandler]
    ) throws {
        // Byte-exact header handlers only where bytes that are not UTF-8 can occur and matter.
        if restoresRawHeaderBytes { try pipeline.addHandler(RawHeaderBytesHandler()) }
        let requestHeadBytes = keepsRequestHeadBytes ? RequestHeadBytesHandler() : nil
        if let requestHeadBytes { try pipeline.addHandler(requestHeadBytes) }
        try pipeline.configureHTTPServerPipeline(
            withPipeliningAssistance: true, withServerUpgrade: upgrades.leavingHTTP().configuration(), withErrorHandling: false)
        if let requestHeadBytes {
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(RequestHeadBytesHandler.Observer(requestHeadBytes), position: .after(decoder))
        }
        for handler in handlers { try pipeline.addHandler(handler) }
    }
}
