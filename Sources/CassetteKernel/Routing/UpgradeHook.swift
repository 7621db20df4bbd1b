import NIOCore
import NIOHTTP1

/// Where a protocol switch plugs into every HTTP pipeline the proxy builds (reverse listeners,
/// session listeners, CONNECT tunnels, the forward listener): SwiftNIO's server upgraders, offered
/// each request that asks to `Upgrade` (`configureHTTPServerPipeline(withServerUpgrade:)`). An
/// upgrader that takes a request takes the connection over; a request no upgrader takes reaches
/// `ProxyHandler`, which answers it as `InterimRequestHeaders` decides (501 for WebSocket and
/// other protocols, `h2c` answered over HTTP/1.1).
struct UpgradeHook: Sendable {
    /// The upgraders for one new connection (upgraders keep per-connection state).
    var makeUpgraders: @Sendable () -> [any HTTPServerProtocolUpgrader] = { [] }
    /// Called on the connection's event loop once an upgrader took it over.
    var upgraded: @Sendable (ChannelHandlerContext) -> Void = { _ in }

    /// No protocol switches: every `Upgrade` is refused or ignored, as HTTP/1.1 allows.
    static let none = UpgradeHook()

    /// The configuration for one connection's pipeline; `nil` when there are no upgraders, so a
    /// connection pays for no upgrade handler.
    func configuration() -> NIOHTTPServerUpgradeConfiguration? {
        let upgraders = makeUpgraders()
        return upgraders.isEmpty ? nil : (upgraders: upgraders, completionHandler: upgraded)
    }

    /// The same hook, first taking out of a switched connection the handlers that only HTTP
    /// needs: NIO removes its own, but the header-byte handlers would escape the new protocol's
    /// bytes, and `ProxyHandler` reads HTTP parts only.
    func leavingHTTP() -> UpgradeHook {
        var hook = self
        let next = upgraded
        hook.upgraded = { context in
            let pipeline = context.pipeline.syncOperations
            if let handler = try? pipeline.handler(type: ProxyHandler.self) { _ = pipeline.removeHandler(handler) }
            if let handler = try? pipeline.handler(type: RequestHeadBytesHandler.Observer.self) { _ = pipeline.removeHandler(handler) }
            if let handler = try? pipeline.handler(type: RequestHeadBytesHandler.self) { _ = pipeline.removeHandler(handler) }
            if let handler = try? pipeline.handler(type: RawHeaderBytesHandler.self) { _ = pipeline.removeHandler(handler) }
            next(context)
        }
        return hook
    }
}
