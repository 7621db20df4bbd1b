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
}
