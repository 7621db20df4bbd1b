import CassetteKernel
import CassetteServing
import NIOCore
import NIOHTTP1
import NIOWebSocket
import Synchronization

/// A WebSocket handshake sent to the forward listener itself in absolute form, without CONNECT
/// (`GET http://host:port/chat HTTP/1.1` with `Upgrade: websocket`, as a client configured with
/// an HTTP proxy may send for `ws://`): it is its host's, recorded or replayed by the pipeline of
/// that origin (`ForwardRouter.hostPipeline(for:)`) exactly as one that came through a CONNECT tunnel,
/// under the same key. The host's own upgrader decides and takes the connection over; this one
/// only picks it, per connection.
package final class ForwardWebSocketUpgrade: HTTPServerProtocolUpgrader, Sendable {
    package let supportedProtocol = "websocket"
    /// As `NIOWebSocketServerUpgrader`: none (NIO wants these named in `Connection`); the host's
    /// upgrader checks the key and version itself.
    package let requiredUpgradeHeaders: [String] = []

    private let router: ForwardRouter
    /// The host's upgrader the handshake went to: chosen in `buildUpgradeResponse`, used in `upgrade`.
    private let chosen = Mutex<(any HTTPServerProtocolUpgrader & Sendable)?>(nil)

    package init(router: ForwardRouter) {
        self.router = router
    }

    /// The forward listener's upgrades: this upgrader, and the connection's CONNECT handling taken
    /// out once it switched (it reads HTTP parts only; `leavingHTTP` takes out the rest).
    package static func protocolSwitch(_ router: ForwardRouter) -> ProtocolSwitches.Switch {
        ProtocolSwitches.Switch(
            makeUpgraders: { [ForwardWebSocketUpgrade(router: router)] },
            upgraded: { context in
                let pipeline = context.pipeline.syncOperations
                if let handler = try? pipeline.handler(type: ConnectHandler.self) { _ = pipeline.removeHandler(handler) }
            },
            isDecline: { $0 is NIOWebSocketUpgradeError })
    }

    package func buildUpgradeResponse(channel: Channel, upgradeRequest: HTTPRequestHead, initialResponseHeaders: HTTPHeaders) -> EventLoopFuture<HTTPHeaders> {
        // A `/path` target is the listener's own (its endpoints); it has no host to go to.
        // The host's own WebSocket switch, as its pipeline inside a tunnel offers it.
        guard let host = router.hostPipeline(for: upgradeRequest),
            let upgrader = host.switches.makeUpgraders().first(where: { $0.supportedProtocol == supportedProtocol })
        else {
            return channel.eventLoop.makeFailedFuture(NIOWebSocketUpgradeError.unsupportedWebSocketTarget)
        }
        chosen.withLock { $0 = upgrader }
        return upgrader.buildUpgradeResponse(channel: channel, upgradeRequest: upgradeRequest, initialResponseHeaders: initialResponseHeaders)
    }

    package func upgrade(context: ChannelHandlerContext, upgradeRequest: HTTPRequestHead) -> EventLoopFuture<Void> {
        guard let upgrader = chosen.withLock({ $0 }) else {
            return context.eventLoop.makeFailedFuture(NIOWebSocketUpgradeError.unsupportedWebSocketTarget)
        }
        return upgrader.upgrade(context: context, upgradeRequest: upgradeRequest)
    }
}
