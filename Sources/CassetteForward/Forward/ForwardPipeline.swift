import NIOCore
import NIOHTTP1

/// The forward proxy's listener: HTTP/1.1 with `CONNECT` taken by `ConnectHandler`, and every
/// other request answered by `ProxyHandler` with the parts of its host (`ForwardRouter`); a
/// WebSocket handshake in absolute form is its host's too (`ForwardWebSocketUpgrade`).
package struct ForwardPipeline: ConnectionPipeline {
    package let router: ForwardRouter

    package func configure(_ pipeline: ChannelPipeline.SynchronousOperations, logShard: Int, targetCache: NIOLoopBoundBox<ReplayTargetCache>) throws {
        // Without the byte-exact header handlers: a CONNECT turns this connection into a tunnel,
        // and `ConnectHandler` removes the HTTP handlers it knows before TLS starts; the host's
        // pipeline inside the tunnel (`ProxyPipeline`) adds them where they matter.
        try ProxyPipeline.configureHTTP(
            pipeline, restoresRawHeaderBytes: false, keepsRequestHeadBytes: false, upgrades: ForwardWebSocketUpgrade.hook(router),
            handlers: [
                ConnectHandler(router: router, logShard: logShard),
                ProxyHandler(parts: router.base.parts, logShard: logShard, targetCache: targetCache, forward: router),
            ])
    }
}
