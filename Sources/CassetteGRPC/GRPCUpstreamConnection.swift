import CassetteServing
import Foundation
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import WellPlateCore

/// How cassette reaches a gRPC upstream, with swift-nio-http2's client: h2c (prior knowledge) to
/// an `http://` upstream, h2 over TLS to an `https://` one, offering ALPN `h2` (gRPC servers
/// refuse a TLS connection that did not select it) and verifying the server under the listener's
/// TLS settings (`--cacert`, `--cert`, `--insecure`), as libcurl does for ordinary requests.
struct GRPCUpstreamConnection: Sendable {
    let upstream: URL
    /// What the pool of connections to it is keyed by, with the upstream's origin.
    let tlsSettings: WellPlateCore.TLSConfiguration
    /// `nil` for h2c; a failure (a file the TLS settings name cannot be read) is what each
    /// connection attempt fails with.
    private let tls: Result<NIOSSLContext, any Error>?

    /// Made once per listener: the TLS context loads the CA and certificate files.
    init(upstream: URL, tls settings: WellPlateCore.TLSConfiguration) {
        self.upstream = upstream
        tlsSettings = settings
        let secure = upstream.scheme?.lowercased() == "https"
        tls = secure ? Result { try NIOSSLContext(configuration: UpstreamTLS.clientConfiguration(settings, applicationProtocols: ["h2"])) } : nil
    }

    /// Without brackets for an IPv6 address, as sockets and SNI take it.
    var host: String { UpstreamAuthority(upstream)?.host ?? "127.0.0.1" }
    var port: Int { upstream.port ?? (tls == nil ? 80 : 443) }
    /// The `:scheme` of requests sent on the connection.
    var scheme: String { tls == nil ? "http" : "https" }
    /// The `:authority` of requests sent on the connection: the upstream's (`[::1]:50051`).
    var authority: String { UpstreamAuthority(upstream)?.authority ?? host }

    /// A connection with HTTP/2 set up before it opens (the server's SETTINGS may come at once),
    /// behind TLS for an `https://` upstream: then ready once the handshake has agreed on `h2`,
    /// so a certificate the settings do not trust fails here, with swift-nio-ssl's reason.
    /// `configure` adds handlers after HTTP/2's (the pool's watcher of SETTINGS and GOAWAY).
    func connect(
        on group: any EventLoopGroup, timeout: TimeAmount,
        configure: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void = { _ in }
    ) -> EventLoopFuture<any Channel> {
        let (host, authority) = (self.host, self.authority)
        let tls: NIOSSLContext?
        do {
            tls = try self.tls?.get()
        } catch {
            return group.next().makeFailedFuture(
                GRPCUpstreamTLSError("TLS towards the upstream \(upstream.absoluteString) could not be set up (\(error)): check --cacert, --cert and --key"))
        }
        let handshake = tls == nil ? nil : group.next().makePromise(of: Void.self)
        let connected = ClientBootstrap(group: group).connectTimeout(timeout).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let operations = channel.pipeline.syncOperations
                if let tls, let handshake {
                    try operations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: UpstreamTLS.serverHostname(host)))
                    try operations.addHandler(ALPNH2Check(handshake: handshake, upstream: "https://\(authority)"))
                }
                _ = try operations.configureHTTP2Pipeline(mode: .client, connectionConfiguration: .init(), streamConfiguration: .init()) {
                    $0.eventLoop.makeSucceededVoidFuture()
                }
                try configure(operations)
            }
        }.connect(host: host, port: port)
        guard let handshake else { return connected }
        return connected.flatMap { channel in
            handshake.futureResult.map { channel }.flatMapErrorThrowing { error in
                channel.close(promise: nil)
                throw error
            }
        }
    }
}

/// Completes `handshake` when TLS is up with `h2` agreed in ALPN, fails it when the handshake
/// fails or the connection closes first.
private final class ALPNH2Check: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    private let handshake: EventLoopPromise<Void>
    /// `https://host:port`, as the errors name it.
    private let upstream: String
    private var settled = false

    init(handshake: EventLoopPromise<Void>, upstream: String) {
        self.handshake = handshake
        self.upstream = upstream
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiated) = event as? TLSUserEvent {
            if negotiated == "h2" {
                settle(nil)
            } else {
                settle(
                    GRPCUpstreamTLSError(
                        "the upstream \(upstream) chose \(negotiated ?? "no protocol") in ALPN, not h2, which gRPC over TLS needs: point --upstream at its gRPC port"
                    ))
                context.close(promise: nil)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // An untrusted certificate, or one for another host: in words that say what to do, as
        // for WebSocket upstreams, not swift-nio-ssl's ("Couldn't find <none> in certificate").
        if let explained = UpstreamTLS.explained(error, upstream: upstream) {
            settle(GRPCUpstreamTLSError(explained))
        } else {
            settle(error)
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        settle(GRPCUpstreamTLSError("the upstream \(upstream) closed the connection during the TLS handshake: check that it speaks TLS on that port"))
        context.fireChannelInactive()
    }

    private func settle(_ error: (any Error)?) {
        guard !settled else { return }
        settled = true
        if let error { handshake.fail(error) } else { handshake.succeed() }
    }
}

/// TLS towards an `https://` gRPC upstream could not be set up or did not agree to `h2`: a
/// sentence that names the upstream and says what to do, so it is told as it is.
struct GRPCUpstreamTLSError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
