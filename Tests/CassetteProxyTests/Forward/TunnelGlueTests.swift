import NIOCore
import NIOEmbedded
import Testing

@testable import CassetteForward

/// `TunnelGlue` joining two embedded channels on one loop, as a passed-on CONNECT joins the
/// client's connection and the real host's: bytes read on one side are written to the other,
/// flushed when the read batch ends; reads wait while the other side cannot take more; either
/// side going away closes the other, and a side's end of input becomes the other's end of output.
@Suite("Tunnel glue")
struct TunnelGlueTests {
    struct Tunnel {
        let loop = EmbeddedEventLoop()
        let client: EmbeddedChannel
        let upstream: EmbeddedChannel
        /// The sockets' ends: the reads each side asked for, and its half-closures.
        let clientSocket = SocketStandIn()
        let upstreamSocket = SocketStandIn()

        init() throws {
            client = EmbeddedChannel(loop: loop)
            upstream = EmbeddedChannel(loop: loop)
            let (local, remote) = TunnelGlue.matchedPair()
            try client.pipeline.syncOperations.addHandlers([clientSocket, local])
            try upstream.pipeline.syncOperations.addHandlers([upstreamSocket, remote])
            try client.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            try upstream.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2)).wait()
        }
    }

    @Test func bytesReadOnOneSideAreWrittenToTheOtherAsTheyCame() throws {
        let tunnel = try Tunnel()
        let hello = ByteBuffer(bytes: [0x16, 0x03, 0x01, 0x00, 0x05, 0xFF, 0x00])
        try tunnel.client.writeInbound(hello)
        #expect(try tunnel.upstream.readOutbound(as: ByteBuffer.self) == hello)
        try tunnel.upstream.writeInbound(ByteBuffer(string: "answer"))
        #expect(try tunnel.client.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "answer"))
        // Nothing is read into the pipeline behind the glue.
        #expect(try tunnel.client.readInbound(as: ByteBuffer.self) == nil)
    }

    @Test func whatIsWrittenIsFlushedOnlyWhenTheReadBatchEnds() throws {
        let tunnel = try Tunnel()
        tunnel.client.pipeline.fireChannelRead(ByteBuffer(string: "one "))
        tunnel.client.pipeline.fireChannelRead(ByteBuffer(string: "two"))
        #expect(try tunnel.upstream.readOutbound(as: ByteBuffer.self) == nil)
        tunnel.client.pipeline.fireChannelReadComplete()
        #expect(try tunnel.upstream.writtenText() == "one two")
    }

    @Test func readsWaitWhileTheOtherSideCannotTakeMore() throws {
        let tunnel = try Tunnel()
        let before = tunnel.clientSocket.reads
        tunnel.upstream.isWritable = false
        tunnel.upstream.pipeline.fireChannelWritabilityChanged()
        tunnel.client.read()
        #expect(tunnel.clientSocket.reads == before)
        tunnel.upstream.isWritable = true
        tunnel.upstream.pipeline.fireChannelWritabilityChanged()
        #expect(tunnel.clientSocket.reads == before + 1)
        // Writable all along: a read goes straight to the socket.
        tunnel.client.read()
        #expect(tunnel.clientSocket.reads == before + 2)
    }

    @Test func theOtherSideBecomingWritableAsksForNoReadThatWasNotHeldBack() throws {
        let tunnel = try Tunnel()
        let before = tunnel.clientSocket.reads
        tunnel.upstream.pipeline.fireChannelWritabilityChanged()
        #expect(tunnel.clientSocket.reads == before)
    }

    @Test(arguments: [true, false])
    func eitherSideGoingAwayClosesTheOther(clientFirst: Bool) throws {
        let tunnel = try Tunnel()
        let (first, other) = clientFirst ? (tunnel.client, tunnel.upstream) : (tunnel.upstream, tunnel.client)
        try first.close().wait()
        #expect(!other.isActive)
    }

    @Test func theEndOfOneSidesInputShutsTheOtherSidesOutput() throws {
        let tunnel = try Tunnel()
        tunnel.client.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(tunnel.upstreamSocket.outputCloses == 1)
        #expect(tunnel.clientSocket.outputCloses == 0)
        #expect(tunnel.upstream.isActive && tunnel.client.isActive)
        // The other way round, and only that.
        tunnel.upstream.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(tunnel.clientSocket.outputCloses == 1)
    }

    @Test func anErrorOnOneSideClosesBoth() throws {
        let tunnel = try Tunnel()
        tunnel.upstream.pipeline.fireErrorCaught(connectionReset)
        #expect(!tunnel.upstream.isActive)
        #expect(!tunnel.client.isActive)
    }
}
