/// How WebSocket conversations are served (`--ws-timing`, `--ws-max-message`).
package struct WebSocketOptions: Sendable, Equatable {
    /// Recorded delays between server messages are multiplied by this on replay: 1 keeps the
    /// recorded timing, 0 sends at once (`fast`), 0.5 twice as fast.
    package var timingScale: Double = 1
    /// A message (all its fragments) larger than this closes the connection with 1009.
    package var maxMessageSize = 16 * 1024 * 1024

    package init() {}
}
