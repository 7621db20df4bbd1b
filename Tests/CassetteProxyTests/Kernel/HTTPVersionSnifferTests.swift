import NIOCore
import NIOEmbedded
import Testing

@testable import CassetteKernel

/// A plain listener's first handler tells HTTP/2 with prior knowledge from HTTP/1.1 by the first
/// bytes, however they are split, hands them on unchanged and leaves the pipeline.
@Suite("HTTP version sniffer over an embedded channel")
struct HTTPVersionSnifferTests {
    /// What the sniffer decided, each time it set the pipeline up.
    final class Decisions {
        var http2: [Bool] = []
    }

    private func channel(failing: Bool = false) throws -> (EmbeddedChannel, Decisions) {
        let decisions = Decisions()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            HTTPVersionSniffer { http2, _ in
                decisions.http2.append(http2)
                if failing { throw ChannelError.operationUnsupported }
            })
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, decisions)
    }

    private func passed(_ channel: EmbeddedChannel) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let buffer = try channel.readInbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
        return bytes
    }

    private var snifferIsGone: (EmbeddedChannel) -> Bool {
        { channel in (try? channel.pipeline.syncOperations.handler(type: HTTPVersionSniffer.self)) == nil }
    }

    @Test func thePrefaceInPiecesIsHTTP2AndGoesOnWhole() throws {
        let (channel, decisions) = try channel()
        let bytes = HTTPVersionSniffer.preface + [0, 0, 0, 4, 0, 0, 0, 0, 0]
        try channel.writeInbound(ByteBuffer(bytes: bytes[..<3]))
        try channel.writeInbound(ByteBuffer(bytes: bytes[3..<20]))
        #expect(decisions.http2.isEmpty, "still a beginning of the preface")
        #expect(try passed(channel).isEmpty)
        try channel.writeInbound(ByteBuffer(bytes: bytes[20...]))
        #expect(decisions.http2 == [true])
        #expect(try passed(channel) == bytes)
        #expect(snifferIsGone(channel))
        _ = try channel.finish()
    }

    @Test(arguments: ["GET / HTTP/1.1\r\nHost: x\r\n\r\n", "PRI /x HTTP/1.1\r\n\r\n", "\u{01}garbage"])
    func anythingElseIsHTTP1AndGoesOnUnchanged(_ text: String) throws {
        let (channel, decisions) = try channel()
        try channel.writeInbound(ByteBuffer(string: text))
        #expect(decisions.http2 == [false])
        #expect(try passed(channel) == Array(text.utf8))
        #expect(snifferIsGone(channel))
        _ = try channel.finish()
    }

    @Test func aBeginningOfThePrefaceThatThenDiffersIsHTTP1() throws {
        let (channel, decisions) = try channel()
        try channel.writeInbound(ByteBuffer(string: "PRI * HTTP/2"))
        #expect(decisions.http2.isEmpty)
        try channel.writeInbound(ByteBuffer(string: ".1\r\n\r\n"))
        #expect(decisions.http2 == [false])
        #expect(try passed(channel) == Array("PRI * HTTP/2.1\r\n\r\n".utf8))
        _ = try channel.finish()
    }

    @Test func aSetUpThatFailsClosesTheConnection() throws {
        let (channel, decisions) = try channel(failing: true)
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        #expect(decisions.http2 == [false])
        #expect(try passed(channel).isEmpty)
        #expect(!channel.isActive)
    }

    @Test func aServerShuttingDownBeforeTheClientSpokeClosesTheConnection() throws {
        let (channel, decisions) = try channel()
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(!channel.isActive)
        #expect(decisions.http2.isEmpty)
    }
}
