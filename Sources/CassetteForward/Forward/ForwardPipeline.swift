import CassetteKernel
import CassetteServing
import NIOCore
import NIOHTTP1

/// The forward proxy's listener: HTTP/1.1 with `CONNECT` taken by `ConnectHandler`, and every
/// other request answered by the kernel's handler with the parts of its host (`ForwardRouter`
/// as the listener's `HostRouting`); a WebSocket handshake in absolute form is its host's too
/// (`ForwardWebSocketUpgrade`).
package struct ForwardPipeline: ConnectionPipeline {
    package let router: ForwardRouter
    /// The listener's own parts, routing absolute-form requests to their hosts.
    private let parts: ServingResponder

    package init(router: ForwardRouter) {
        self.router = router
        parts = router.base.parts.routingHosts(router)
    }

    package func configure(_ pipeline: ChannelPipeline.SynchronousOperations, loop: ConnectionLoop) throws {
        let parts = self.parts
        let route = loop.storage.value { ServingRoute(parts: parts, targetCache: .makeBoxSendingValue(ReplayTargetCache(), eventLoop: pipeline.eventLoop)) }
        // Without the byte-exact header handlers: a CONNECT turns this connection into a tunnel,
        // and `ConnectHandler` removes the HTTP handlers it knows before TLS starts; the host's
        // pipeline inside the tunnel (`ServingPipeline`) adds them where they matter.
        let switches = ProtocolSwitches([ForwardWebSocketUpgrade.protocolSwitch(router)])
        try HTTPPipeline.configure(
            pipeline, restoresRawHeaderBytes: false, keepsRequestHeadBytes: false, switches: switches,
            handlers: [
                ConnectHandler(router: router, logShard: loop.logShard),
                HTTPConnectionHandler(responder: route, logShard: loop.logShard, switches: switches),
            ])
    }
}
