import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A WebSocket client on SwiftNIO, as a Swift app's own would be: `NIOTypedWebSocketClientUpgrader`
/// over a `ClientBootstrap`, then the connection as an `NIOAsyncChannel` of frames. It plays the
/// chat of `Tests/Peers/websocket_client.py` (hello, auth, an add request, an echo, three ticks,
/// bye) and returns what it received, in order, then the close.
enum NIOWebSocketTestClient {
    enum Event: Equatable, CustomStringConvertible {
        case text(String)
        case binary([UInt8])
        /// The server's close frame: its code (`nil`: none) and reason.
        case closed(code: Int?, reason: String)
        /// The connection ended without a close frame.
        case dropped

        var description: String {
            switch self {
            case .text(let text): "text \(text)"
            case .binary(let bytes): "binary \(bytes.count) bytes"
            case .closed(let code, let reason): "closed \(code.map(String.init) ?? "-") \(reason)"
            case .dropped: "dropped"
            }
        }
    }

    struct NotUpgraded: Error, CustomStringConvertible {
        var description: String { "the server answered the WebSocket handshake without switching protocols" }
    }

    private enum Upgrade {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case notUpgraded
    }

    /// Plays the chat against `ws://127.0.0.1:PORT/chat`, offering the subprotocol `chat.v1`.
    static func chat(port: Int) async throws -> [Event] {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "127.0.0.1:\(port)")
        headers.add(name: "Sec-WebSocket-Protocol", value: "chat.v1")
        headers.add(name: "Content-Length", value: "0")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/chat", headers: headers)
        let upgrade: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade> { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            .websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                        }
                    }
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { .notUpgraded } })
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    // A server that speaks first (the recorded hello) may send its first frame in the
                    // same read as its 101; NIO's default drops the bytes after the 101.
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                }
            }
        guard case .websocket(let channel) = try await upgrade.get() else { throw NotUpgraded() }
        // A conversation that stalls ends as dropped, so the test shows what arrived instead of hanging.
        let stall = channel.channel.eventLoop.scheduleTask(in: .seconds(30)) { channel.channel.close(promise: nil) }
        defer { stall.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            var conversation = Conversation(frames: inbound.makeAsyncIterator(), outbound: outbound)
            try await conversation.receive { $0 == .text(#"{"type": "hello"}"#) }
            try await conversation.send(#"{"type": "auth", "token": "sk-live-token-1234567890"}"#)
            try await conversation.receive { $0 == .text(#"{"type": "authed"}"#) }
            try await conversation.send(#"{"id": 7, "method": "add", "params": [1, 2]}"#)
            try await conversation.receive { $0.description.contains(#""id": 7"#) }
            try await conversation.send("echo me")
            try await conversation.receive { $0 == .text("echo me") }
            try await conversation.receive { $0.description.contains(#""n": 3"#) }
            try await conversation.send("bye")
            try await conversation.receive { _ in false }
            return conversation.events
        }
    }

    /// One connection's frames in and out, and what was received so far.
    private struct Conversation {
        var frames: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
        let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
        var events: [Event] = []
        var ended = false

        /// Sends a text message, masked as a client's frames must be (RFC 6455 §5.3); nothing once the connection ended.
        func send(_ text: String) async throws {
            guard !ended else { return }
            try await outbound.write(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)))
        }

        /// Reads messages until one satisfies `until`, or the connection ends; answers pings and the close.
        mutating func receive(until: (Event) -> Bool) async throws {
            while !ended {
                guard let frame = try await frames.next() else {
                    events.append(.dropped)
                    ended = true
                    return
                }
                let event: Event
                switch frame.opcode {
                case .text: event = .text(String(buffer: frame.unmaskedData))
                case .binary: event = .binary(Array(buffer: frame.unmaskedData))
                case .ping:
                    try await outbound.write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData))
                    continue
                case .connectionClose:
                    var data = frame.unmaskedData
                    let code = data.readInteger(as: UInt16.self).map(Int.init)
                    event = .closed(code: code, reason: data.readString(length: data.readableBytes) ?? "")
                    // The close handshake: the client echoes the code, then the server closes.
                    var echo = ByteBuffer()
                    if let code { echo.writeInteger(UInt16(code)) }
                    try await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: echo))
                    ended = true
                default:
                    continue
                }
                events.append(event)
                if ended || until(event) { return }
            }
        }
    }
}
