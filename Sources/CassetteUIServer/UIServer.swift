import CassetteUI
import Foundation
import NIOCore
import NIOHTTP1
import WellPlateCore

/// `cassette ui`: the web UI of a store on a port of its own, with no proxy behind it (so no
/// Live view). Built on the proxy's server (`ProxyServer`), with a pipeline that answers only
/// the UI.
package struct UIServer: Sendable {
    private let server: ProxyServer
    /// The URL to open: `http://HOST:PORT/`, with `?token=…` when one is needed.
    package let url: String

    /// Serves `store` on `host`:`port` (0: a free one), with a token unless `host` is loopback;
    /// `findings` makes the Drift view's data (`UICatalog.findings`).
    package static func start(
        store: CassetteStore, host: String, port: Int, findings: (@Sendable () async throws -> JSONValue)? = nil
    ) async throws(ProxyError) -> UIServer {
        let access = UIAccess.forHost(host)
        var catalog = UICatalog(store: store)
        catalog.findings = findings
        let endpoints = UIEndpoints(catalog: catalog, access: access, live: nil)
        do {
            let server = try await ProxyServer.start(
                listeners: [ProxyServer.Listener(pipeline: UIPipeline(endpoints: endpoints), host: host, port: port)], threads: 1)
            return UIServer(server: server, url: "\(server.address)/\(access.query)")
        } catch let error as ProxyError {
            throw error
        } catch {
            throw .failure("\(error)")
        }
    }

    package func stop() async {
        await server.shutdown()
    }
}

/// The connections of `cassette ui`: NIO's HTTP/1.1 server pipeline, then `UIConnectionHandler`.
package struct UIPipeline: ConnectionPipeline {
    package let endpoints: UIEndpoints

    package func configure(_ pipeline: ChannelPipeline.SynchronousOperations, logShard: Int, targetCache: NIOLoopBoundBox<ReplayTargetCache>) throws {
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
        try pipeline.addHandler(UIConnectionHandler(endpoints: endpoints))
    }
}

/// Answers each request with the UI (the body of a UI request is never read).
package final class UIConnectionHandler: ChannelInboundHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias OutboundOut = HTTPServerResponsePart

    package let endpoints: UIEndpoints
    private var head: HTTPRequestHead?

    package init(endpoints: UIEndpoints) {
        self.endpoints = endpoints
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            answer(head, context: context)
        }
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        var decision = endpoints.decide(head)
        if head.method != .GET && head.method != .HEAD {
            decision = .answer(UIEndpoints.error(405, "method_not_allowed", "use GET"))
        }
        switch decision {
        case .answer(let answer):
            write(answer, for: head, context: context)
        case .later(let make):
            let promise = context.eventLoop.makePromise(of: ProxyAnswer.self)
            Task { promise.succeed(await make()) }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            promise.futureResult.whenSuccess { answer in bound.value.0.write(answer, for: head, context: bound.value.1) }
        case .follow:
            // `cassette ui` has no feed (`UIEndpoints` refuses the stream first); nothing to follow.
            write(UIEndpoints.error(404, "no_live_view", "cassette ui serves a store; the Live view is on a running proxy"), for: head, context: context)
        case .sessions:
            // No proxy, no sessions: the view says so.
            write(UIEndpoints.sessionsAnswer(nil), for: head, context: context)
        }
    }

    private func write(_ answer: ProxyAnswer, for request: HTTPRequestHead, context: ChannelHandlerContext) {
        guard case .fields(let status, let fields) = answer.head, case .bytes(let body) = answer.body else { return }
        let headers = ResponseHeaders.make(from: fields, bodyCount: body.count, requestMethod: request.method, statusCode: status)
        let close = !request.isKeepAlive
        let head = HTTPResponseHead(
            version: request.version, status: HTTPResponseStatus(statusCode: status),
            headers: AnswerWriter.connectionHeaders(headers, for: request, close: close))
        context.write(Self.wrapOutboundOut(.head(head)), promise: nil)
        if request.method != .HEAD { context.write(Self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil) }
        let end = context.writeAndFlush(Self.wrapOutboundOut(.end(nil)))
        if close { end.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) } }
    }
}

@available(*, unavailable)
extension UIConnectionHandler: Sendable {}
