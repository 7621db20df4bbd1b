import CassetteKernel
import CassetteServing
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import WellPlateCore
import WellPlateNetworking

/// `CONNECT host:port` on the forward proxy's listener. An intercepted host gets `200`, then
/// the connection turns into a TLS server with a certificate for that host from the local
/// authority, serving HTTP/1.1 through that host's pipeline (recorded or replayed). A host that
/// is passed on gets a byte-for-byte tunnel to the real host; a refused one a status that says
/// why. Every other request goes on to `HTTPConnectionHandler`.
package final class ConnectHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundOut = HTTPServerResponsePart

    package let router: ForwardRouter
    package let logShard: Int
    /// The target of a CONNECT whose end has not arrived yet.
    private var connecting: (host: String, port: Int, head: HTTPRequestHead)?
    /// Set once a CONNECT is answered with an error: the connection is closing (`LingeringClose`),
    /// and nothing that still arrives is served.
    private var closing = false

    package init(router: ForwardRouter, logShard: Int) {
        self.router = router
        self.logShard = logShard
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if closing { return }
        let part = Self.unwrapInboundIn(data)
        if connecting == nil, case .head(let head) = part, head.method == .CONNECT {
            guard let (host, port) = Self.authority(head.uri) else {
                respond(
                    400, "CONNECT needs a target of the form host:port, such as api.example.com:443; got \(head.uri.prefix(100))", version: head.version,
                    context: context)
                return
            }
            connecting = (host.lowercased(), port, head)
            return
        }
        if let target = connecting {
            // A CONNECT body means nothing; its end starts the tunnel.
            if case .end = part {
                connecting = nil
                connect(target, context: context)
            }
            return
        }
        context.fireChannelRead(data)
    }

    /// `host:port` (`[v6]:port`) of a CONNECT target.
    package static func authority(_ target: String) -> (String, Int)? {
        guard let colon = target.lastIndex(of: ":"), let port = Int(target[target.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        var host = String(target[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains("/"), !host.contains("@"), !host.contains(" ") else { return nil }
        return (host, port)
    }

    private func connect(_ target: (host: String, port: Int, head: HTTPRequestHead), context: ChannelHandlerContext) {
        let shown = target.host.contains(":") ? "[\(target.host)]:\(target.port)" : "\(target.host):\(target.port)"
        switch router.decide(host: target.host, port: target.port) {
        case .refuse(let status, let reason):
            router.base.parts.responder.session.countMiss()
            router.log.warn("CONNECT \(shown) refused: \(reason)", shard: logShard)
            respond(status, reason, version: target.head.version, context: context)
        case .passOn(let reason):
            tunnel(to: target.host, port: target.port, shown: shown, reason: reason, version: target.head.version, context: context)
        case .intercept:
            intercept(host: target.host, port: target.port, shown: shown, version: target.head.version, context: context)
        }
    }

    /// Answers the CONNECT with `status` and `reason` as text, then closes the connection,
    /// lingering: a client may have sent its TLS hello behind the CONNECT.
    private func respond(_ status: Int, _ reason: String, version: HTTPVersion, context: ChannelHandlerContext) {
        closing = true
        let body = context.channel.allocator.buffer(string: reason + "\n")
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Connection", value: "close")
        headers.add(name: ControlNames.answerHeader, value: status == 502 ? "error" : "miss")
        context.write(
            Self.wrapOutboundOut(.head(HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: status), headers: headers))), promise: nil)
        context.write(Self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
        LingeringClose.start(context)
    }

    /// The client's TLS is terminated here with a certificate for `host`, and its requests served
    /// by that host's pipeline; a client that speaks plain HTTP inside the tunnel (a `ws://`
    /// WebSocket through the proxy) is served by the pipeline of `http://host:port`.
    private func intercept(host: String, port: Int, shown: String, version: HTTPVersion, context: ChannelHandlerContext) {
        let sslContext: NIOSSLContext
        do {
            sslContext = try router.leaves.context(for: host)
        } catch {
            router.log.warn("CONNECT \(shown): cannot issue a certificate for \(host): \(error)", shard: logShard)
            respond(502, "cassette cannot issue a certificate for \(host): \(error)", version: version, context: context)
            return
        }
        let router = router
        let logShard = logShard
        let channel = context.channel
        // Out of the decoder's call stack: the HTTP handlers go, `200` is written in the clear,
        // then the tunnel's first byte decides between TLS and plain HTTP.
        context.eventLoop.execute {
            Self.removeHTTPHandlers(channel).whenComplete { _ in
                Self.startTunnel(
                    channel: channel, sslContext: sslContext, host: host, port: port, shown: shown, version: version, router: router, logShard: logShard)
            }
        }
    }

    private static func startTunnel(
        channel: any Channel, sslContext: NIOSSLContext, host: String, port: Int, shown: String, version: HTTPVersion, router: ForwardRouter,
        logShard: Int
    ) {
        do {
            channel.writeAndFlush(channel.allocator.buffer(string: "HTTP/\(version.major).\(version.minor) 200 Connection Established\r\n\r\n"), promise: nil)
            let sniffer = TunnelProtocolSniffer { tls, operations in
                let origin = ForwardRouter.origin(scheme: tls ? "https" : "http", host: host, port: port)
                let pipeline = router.pipeline(origin: origin, records: true)
                let route = ServingRoute(parts: pipeline.parts, targetCache: .makeBoxSendingValue(ReplayTargetCache(), eventLoop: channel.eventLoop))
                if tls {
                    // The certificate's context offers ALPN `h2` and `http/1.1`.
                    try operations.addHandler(NIOSSLServerHandler(context: sslContext))
                    try operations.addHandler(ClientTLSWatcher(host: host, router: router, logShard: logShard))
                    try pipeline.configureAfterTLS(operations, route: route, logShard: logShard)
                } else {
                    try pipeline.configurePlain(operations, route: route, logShard: logShard)
                }
            }
            try channel.pipeline.syncOperations.addHandler(sniffer)
        } catch {
            router.log.warn("CONNECT \(shown): cannot set up the intercepted connection: \(error)", shard: logShard)
            channel.close(promise: nil)
        }
    }

    /// A byte-for-byte tunnel to the real host: nothing is read, changed or recorded.
    private func tunnel(to host: String, port: Int, shown: String, reason: String, version: HTTPVersion, context: ChannelHandlerContext) {
        let channel = context.channel
        let router = router
        let logShard = logShard
        let boundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: port)
            .whenComplete { result in
                switch result {
                case .failure(let error):
                    router.log.warn("CONNECT \(shown) could not be tunnelled: \(error)", shard: logShard)
                    boundSelf.value.respond(502, "cassette could not reach \(shown) to tunnel to it: \(error)", version: version, context: boundContext.value)
                case .success(let upstream):
                    router.log.warn("CONNECT \(shown) tunnelled untouched, not recorded (\(reason))", shard: logShard)
                    Self.removeHTTPHandlers(channel).whenComplete { _ in
                        do {
                            channel.writeAndFlush(
                                channel.allocator.buffer(string: "HTTP/\(version.major).\(version.minor) 200 Connection Established\r\n\r\n"), promise: nil)
                            let (local, remote) = TunnelGlue.matchedPair()
                            try channel.pipeline.syncOperations.addHandler(local)
                            try upstream.pipeline.syncOperations.addHandler(remote)
                        } catch {
                            channel.close(promise: nil)
                            upstream.close(promise: nil)
                        }
                    }
                }
            }
    }

    /// Every HTTP handler of the listener's pipeline, this one included (those
    /// `configureHTTPServerPipeline` adds, whichever of them it added).
    private static func removeHTTPHandlers(_ channel: any Channel) -> EventLoopFuture<Void> {
        let operations = channel.pipeline.syncOperations
        let handlers: [(any RemovableChannelHandler)?] = [
            try? operations.handler(type: HTTPConnectionHandler.self),
            try? operations.handler(type: ConnectHandler.self),
            try? operations.handler(type: HTTPServerPipelineHandler.self),
            try? operations.handler(type: NIOHTTPResponseHeadersValidator.self),
            try? operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self),
            try? operations.handler(type: HTTPResponseEncoder.self),
        ]
        // Removal may finish later (the decoder finishes what it holds first): the next
        // handlers go in once every one of these is gone.
        let removals = handlers.compactMap { $0 }.map { operations.removeHandler($0) }
        return EventLoopFuture.andAllSucceed(removals, on: channel.eventLoop)
    }
}

@available(*, unavailable)
extension ConnectHandler: Sendable {}

/// Watches the TLS handshake of an intercepted connection: a client that rejects the proxy's
/// certificate (it does not trust the local authority) is one clear log line naming the host and
/// `cassette ca path`, not a silent hang.
package final class ClientTLSWatcher: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = NIOAny

    package let host: String
    package let router: ForwardRouter
    package let logShard: Int
    private var handshaken = false
    private var reported = false

    package init(host: String, router: ForwardRouter, logShard: Int) {
        self.host = host
        self.router = router
        self.logShard = logShard
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { handshaken = true }
        context.fireUserInboundEventTriggered(event)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !handshaken else {
            context.fireErrorCaught(error)
            return
        }
        report(String(describing: error))
        context.close(promise: nil)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        if !handshaken { report(nil) }
        context.fireChannelInactive()
    }

    private func report(_ error: String?) {
        guard !reported else { return }
        reported = true
        let trust = "trust cassette's certificate authority in the client: \(router.leaves.authority.certificatePath) (`cassette ca path`)"
        let line: String
        if let error, Self.isRejection(error) {
            line = "TLS for \(host) failed: the client rejected cassette's certificate (\(Self.reason(error))), so it does not trust the authority; \(trust)"
        } else if let error {
            line =
                "TLS for \(host) failed: the client broke off the handshake (\(Self.reason(error))), most likely because it does not trust cassette's certificate; \(trust)"
        } else {
            line =
                "TLS for \(host) failed: the client closed the connection during the handshake, most likely because it does not trust cassette's certificate; \(trust)"
        }
        router.log.warn(line, shard: logShard)
    }

    /// The TLS library's reason codes (`TLSV1_ALERT_UNKNOWN_CA`), without file names and numbers.
    package static func reason(_ error: String) -> String {
        let codes = error.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "]" || $0 == ")" }).compactMap { word -> String? in
            guard let colon = word.lastIndex(of: ":"), word.contains("OPENSSL_internal") else { return nil }
            return String(word[word.index(after: colon)...])
        }
        return codes.isEmpty ? String(error.prefix(120)) : codes.joined(separator: ", ")
    }

    /// The alerts a client sends when it does not trust the certificate.
    package static func isRejection(_ error: String) -> Bool {
        let text = error.uppercased()
        return ["UNKNOWN_CA", "CERTIFICATE_UNKNOWN", "BAD_CERTIFICATE", "UNSUPPORTED_CERTIFICATE", "CERTIFICATE_EXPIRED"].contains { text.contains($0) }
    }
}

@available(*, unavailable)
extension ClientTLSWatcher: Sendable {}
