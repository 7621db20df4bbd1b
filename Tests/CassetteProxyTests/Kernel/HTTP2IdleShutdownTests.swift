import CassetteKernel
import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

/// A quiescing server closes an HTTP/2 connection with no open stream at once, and leaves one
/// with open streams to the graceful shutdown behind it.
@Suite("HTTP/2 idle shutdown over an embedded channel")
struct HTTP2IdleShutdownTests {
    /// Records the user events that get past the handler.
    final class EventsPassed: ChannelInboundHandler {
        typealias InboundIn = HTTP2Frame
        var quiesces = 0
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is ChannelShouldQuiesceEvent { quiesces += 1 }
        }
    }

    private func channel() throws -> (EmbeddedChannel, EventsPassed) {
        let passed = EventsPassed()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(HTTP2IdleShutdown())
        try channel.pipeline.syncOperations.addHandler(passed)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, passed)
    }

    private func open(_ id: Int, on channel: EmbeddedChannel) {
        channel.pipeline.fireUserInboundEventTriggered(
            NIOHTTP2StreamCreatedEvent(streamID: HTTP2StreamID(id), localInitialWindowSize: 65535, remoteInitialWindowSize: 65535))
    }

    @Test func aConnectionWhoseStreamsAreAllClosedGetsAGoAwayNamingTheLastAndCloses() throws {
        let (channel, passed) = try channel()
        open(1, on: channel)
        open(3, on: channel)
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 1, reason: nil))
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 3, reason: nil))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        let frame = try #require(try channel.readOutbound(as: HTTP2Frame.self))
        guard case .goAway(let last, let code, _) = frame.payload else {
            Issue.record("expected a GOAWAY, got \(frame.payload)")
            return
        }
        #expect(last == 3 && code == .noError)
        #expect(passed.quiesces == 0)
        #expect(!channel.isActive)
    }

    @Test func aConnectionWithAnOpenStreamLeavesTheShutdownToTheGracefulHandler() throws {
        let (channel, passed) = try channel()
        open(1, on: channel)
        open(3, on: channel)
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 1, reason: nil))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(try channel.readOutbound(as: HTTP2Frame.self) == nil)
        #expect(passed.quiesces == 1)
        #expect(channel.isActive)
        _ = try channel.finish()
    }
}
