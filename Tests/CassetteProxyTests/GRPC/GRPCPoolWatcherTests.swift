import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import CassetteGRPC

/// `GRPCPoolWatcher` on an embedded channel standing where `NIOHTTP2Handler` would: what it tells
/// the pool of the connection's SETTINGS and GOAWAY, and every frame passed on unchanged. (The
/// pool against real servers: `GRPCUpstreamPoolTests`, `ProxyGRPCUpstreamPoolTests`.)
@Suite("gRPC upstream pool's connection watcher")
struct GRPCPoolWatcherTests {
    /// What the watcher reported, in order.
    final class Heard {
        var said: [String] = []
    }

    private func watched() throws -> (EmbeddedChannel, Heard) {
        let heard = Heard()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            GRPCPoolWatcher(
                settingsReceived: { heard.said.append("settings \($0.map(String.init) ?? "without a limit")") },
                goAwayReceived: { heard.said.append("goaway") }))
        return (channel, heard)
    }

    @Test func settingsReportTheirStreamLimitTheLastOneWhenRepeatedAndNoneWhenLeftOut() throws {
        let (channel, heard) = try watched()
        try channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([HTTP2Setting(parameter: .initialWindowSize, value: 65_535)]))))
        try channel.writeInbound(
            HTTP2Frame(
                streamID: .rootStream,
                payload: .settings(
                    .settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 4), HTTP2Setting(parameter: .maxConcurrentStreams, value: 2)]))))
        try channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .settings(.ack)))
        #expect(heard.said == ["settings without a limit", "settings 2"])
        #expect(try channel.readInbound(as: HTTP2Frame.self) != nil)
        #expect(try channel.readInbound(as: HTTP2Frame.self) != nil)
        #expect(try channel.readInbound(as: HTTP2Frame.self) != nil, "the ACK is passed on too")
        #expect(try channel.finish().isClean)
    }

    @Test func aGoAwayIsReportedAndPassedOnAndStreamFramesOnlyPassedOn() throws {
        let (channel, heard) = try watched()
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .windowUpdate(windowSizeIncrement: 10)))
        try channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: 1, errorCode: .noError, opaqueData: nil)))
        #expect(heard.said == ["goaway"])
        let first = try #require(try channel.readInbound(as: HTTP2Frame.self))
        #expect(first.streamID == 1)
        let second = try #require(try channel.readInbound(as: HTTP2Frame.self))
        guard case .goAway(let last, .noError, nil) = second.payload else {
            Issue.record("not the GOAWAY: \(second.payload)")
            return
        }
        #expect(last == 1)
        #expect(try channel.finish().isClean)
    }
}
