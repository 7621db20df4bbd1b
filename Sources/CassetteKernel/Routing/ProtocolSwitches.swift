import NIOCore
import NIOHTTP1

/// Where protocol switches plug into every HTTP pipeline the kernel builds: each module registers
/// its own (WebSocket today), offered each request that asks to `Upgrade` through SwiftNIO's
/// server upgraders (`configureHTTPServerPipeline(withServerUpgrade:)`). An upgrader that takes a
/// request takes the connection over; a request no upgrader takes reaches
/// `HTTPConnectionHandler`, which answers it as `InterimRequestHeaders` decides (501 for
/// protocols nobody registered, `h2c` answered over HTTP/1.1).
package struct ProtocolSwitches: Sendable {
    /// One module's switch.
    package struct Switch: Sendable {
        /// The upgraders for one new connection (upgraders keep per-connection state).
        package var makeUpgraders: @Sendable () -> [any HTTPServerProtocolUpgrader & Sendable]
        /// Called on the connection's event loop once an upgrader took it over, to take out of
        /// the pipeline what only this module put there for HTTP.
        package var upgraded: @Sendable (ChannelHandlerContext) -> Void
        /// Whether an error an upgrader raised only says it declined the request, which then goes
        /// on as an HTTP request (NIO's upgrade handler passes such errors down the pipeline).
        package var isDecline: @Sendable (any Error) -> Bool

        package init(
            makeUpgraders: @escaping @Sendable () -> [any HTTPServerProtocolUpgrader & Sendable],
            upgraded: @escaping @Sendable (ChannelHandlerContext) -> Void = { _ in },
            isDecline: @escaping @Sendable (any Error) -> Bool = { _ in false }
        ) {
            self.makeUpgraders = makeUpgraders
            self.upgraded = upgraded
            self.isDecline = isDecline
        }
    }

    package private(set) var switches: [Switch] = []

    package init(_ switches: [Switch] = []) {
        self.switches = switches
    }

    /// No protocol switches: every `Upgrade` is refused or ignored, as HTTP/1.1 allows.
    package static let none = ProtocolSwitches()

    /// These switches and `more`.
    package func registering(_ more: Switch) -> ProtocolSwitches {
        ProtocolSwitches(switches + [more])
    }

    /// The upgraders every switch offers one new connection.
    package func makeUpgraders() -> [any HTTPServerProtocolUpgrader & Sendable] {
        switches.flatMap { $0.makeUpgraders() }
    }

    /// The configuration for one connection's pipeline; `nil` when there are no upgraders, so a
    /// connection pays for no upgrade handler.
    package func configuration() -> NIOHTTPServerUpgradeConfiguration? {
        let upgraders = makeUpgraders()
        guard !upgraders.isEmpty else { return nil }
        let switches = self.switches
        return (
            upgraders: upgraders.map { $0 as any HTTPServerProtocolUpgrader }, completionHandler: { context in for each in switches { each.upgraded(context) } }
        )
    }

    /// The same switches, first taking out of a switched connection the handlers that only HTTP
    /// needs: NIO removes its own, but the header-byte handlers would escape the new protocol's
    /// bytes, and `HTTPConnectionHandler` reads HTTP parts only.
    package func leavingHTTP() -> ProtocolSwitches {
        let leaving = Switch(
            makeUpgraders: { [] },
            upgraded: { context in
                let pipeline = context.pipeline.syncOperations
                if let handler = try? pipeline.handler(type: HTTPConnectionHandler.self) { _ = pipeline.removeHandler(handler) }
                if let handler = try? pipeline.handler(type: RequestHeadBytesHandler.Observer.self) { _ = pipeline.removeHandler(handler) }
                if let handler = try? pipeline.handler(type: RequestHeadBytesHandler.self) { _ = pipeline.removeHandler(handler) }
                if let handler = try? pipeline.handler(type: RawHeaderBytesHandler.self) { _ = pipeline.removeHandler(handler) }
            })
        return ProtocolSwitches([leaving] + switches)
    }
}
