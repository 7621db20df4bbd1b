import NIOCore
import NIOHTTP1

/// An endpoint a module registers in the `ControlTable`: it answers the requests the table routed
/// to it, their method already checked.
package protocol ControlEndpoint: Sendable {
    func answer(_ request: ControlRequest) -> ControlAnswer
}

/// A complete control request, as its endpoint sees it.
package struct ControlRequest {
    package let head: HTTPRequestHead
    package let body: ByteBuffer?
    /// The connection's local address: the proxy's own address as this client reached it.
    package let localAddress: SocketAddress?

    package init(head: HTTPRequestHead, body: ByteBuffer?, localAddress: SocketAddress?) {
        self.head = head
        self.body = body
        self.localAddress = localAddress
    }

    /// `http://HOST:PORT` as the client reached the proxy (`ProxyBase`).
    package var proxyBase: String { ProxyBase.of(head, localAddress: localAddress) }
}

/// How a control endpoint answers.
package enum ControlAnswer: Sendable {
    /// At once.
    case now(ProxyAnswer)
    /// In a task on the connection's event loop (reading a store, opening a session).
    case later(@Sendable () async -> ProxyAnswer)
    /// A stream that stays open (the UI's Live view): `head` goes out at once, then `follow` is
    /// handed the channel, which answers nothing else from then on.
    case stream(HTTPResponseHead, follow: @Sendable (any Channel) -> Void)
}
