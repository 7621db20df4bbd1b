import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import CassetteKernel

/// The last handler of an HTTP/2 connection: a refused flood or a connection error is logged and
/// closes the connection; a stream error is logged and the connection goes on.
@Suite("HTTP/2 connection guard over an embedded channel")
struct HTTP2ConnectionGuardTests {
    private func channel() throws -> (EmbeddedChannel, LogLines) {
        let lines = LogLines()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(HTTP2ConnectionGuard(log: lines.proxyLog, shard: 0))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.remoteAddress = try SocketAddress(ipAddress: "127.0.0.1", port: 1)
        return (channel, lines)
    }

    @Test func aFloodIsLoggedOnceAndClosesTheConnection() throws {
        let (channel, lines) = try channel()
        channel.pipeline.fireErrorCaught(NIOHTTP2Errors.excessiveRSTFrames())
        channel.pipeline.fireErrorCaught(NIOHTTP2Errors.excessiveRSTFrames())
        #expect(!channel.isActive)
        #expect(lines.lines.count == 1, "\(lines.lines)")
        #expect(lines.lines.first?.contains("refused: too many RST_STREAM frames (rapid reset flood)") == true, "\(lines.lines)")
        #expect(lines.lines.first?.contains("connection from [IPv4]127.0.0.1:1 refused") == true, "\(lines.lines)")
    }

    @Test func bytesThatAreNoFrameCloseTheConnectionWithAReason() throws {
        let (channel, lines) = try channel()
        channel.pipeline.fireErrorCaught(NIOHTTP2Errors.unableToParseFrame())
        #expect(!channel.isActive)
        #expect(lines.lines.first?.contains("closed: bytes that are no HTTP/2 frame; sent GOAWAY") == true, "\(lines.lines)")
    }

    @Test func aStreamErrorIsLoggedAndTheConnectionGoesOn() throws {
        let (channel, lines) = try channel()
        channel.pipeline.fireErrorCaught(NIOHTTP2Errors.noSuchStream(streamID: 3))
        // A write to a stream already closed says nothing.
        channel.pipeline.fireErrorCaught(NIOHTTP2Errors.streamClosed(streamID: 5, errorCode: .cancel))
        #expect(channel.isActive)
        #expect(lines.lines.count == 1, "\(lines.lines)")
        #expect(lines.lines.first?.contains("HTTP/2 stream from [IPv4]127.0.0.1:1 reset") == true, "\(lines.lines)")
        _ = try channel.finish()
    }

    @Test func everyFloodHasItsWords() {
        #expect(HTTP2ConnectionGuard.flood(NIOHTTP2Errors.excessiveEmptyDataFrames()) == "too many empty DATA frames in a row (empty frame flood)")
        #expect(HTTP2ConnectionGuard.flood(NIOHTTP2Errors.excessiveContinuationFrames())?.contains("CONTINUATION flood") == true)
        #expect(HTTP2ConnectionGuard.flood(NIOHTTP2Errors.noSuchStream(streamID: 1)) == nil)
    }
}
