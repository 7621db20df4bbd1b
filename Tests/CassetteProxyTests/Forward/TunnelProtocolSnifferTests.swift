import NIOCore
import NIOEmbedded
import Testing

@testable import CassetteForward

/// `TunnelProtocolSniffer` as the first handler inside an intercepted tunnel: the first byte it
/// reads picks TLS (`0x16`, a handshake record) or plain HTTP, it sets up what follows it, hands
/// on what it read, and leaves the pipeline.
@Suite("Tunnel protocol sniffing")
struct TunnelProtocolSnifferTests {
    /// What a set-up did: whether it was asked for TLS, and the handler it added.
    final class SetUps {
        var asked: [Bool] = []
        let added = InboundRecorder<ByteBuffer>()
    }

    func channel(failing: Bool = false) throws -> (EmbeddedChannel, SetUps) {
        let setUps = SetUps()
        let sniffer = TunnelProtocolSniffer { tls, operations in
            setUps.asked.append(tls)
            if failing { throw ChannelError.operationUnsupported }
            try operations.addHandler(setUps.added)
        }
        let channel = EmbeddedChannel(handler: sniffer)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        return (channel, setUps)
    }

    @Test func aTLSHandshakeRecordSetsUpTLSAndTheBytesGoOnToIt() throws {
        let (channel, setUps) = try channel()
        let hello = ByteBuffer(bytes: [0x16, 0x03, 0x01, 0x02, 0x00, 0x01])
        try channel.writeInbound(hello)
        #expect(setUps.asked == [true])
        #expect(setUps.added.reads == [hello])
        #expect(channel.handlerTypes == ["InboundRecorder"])
    }

    @Test(arguments: ["GET /chat HTTP/1.1\r\n", "POST / HTTP/1.1\r\n", "\u{01}"])
    func anythingElseSetsUpPlainHTTP(first: String) throws {
        let (channel, setUps) = try channel()
        try channel.writeInbound(ByteBuffer(string: first))
        #expect(setUps.asked == [false])
        #expect(setUps.added.reads == [ByteBuffer(string: first)])
    }

    @Test func oneByteIsEnoughToDecideAndTheRestFollowsTheSetUp() throws {
        let (channel, setUps) = try channel()
        try channel.writeInbound(ByteBuffer(bytes: [0x16]))
        try channel.writeInbound(ByteBuffer(bytes: [0x03]))
        try channel.writeInbound(ByteBuffer(bytes: [0x16]))
        #expect(setUps.asked == [true])
        #expect(setUps.added.reads == [ByteBuffer(bytes: [0x16]), ByteBuffer(bytes: [0x03]), ByteBuffer(bytes: [0x16])])
    }

    @Test func anEmptyReadDecidesNothing() throws {
        let (channel, setUps) = try channel()
        try channel.writeInbound(ByteBuffer())
        #expect(setUps.asked.isEmpty)
        #expect(channel.handlerTypes == ["TunnelProtocolSniffer"])
        try channel.writeInbound(ByteBuffer(string: "G"))
        #expect(setUps.asked == [false])
    }

    @Test func aSetUpThatFailsClosesTheTunnelAndHandsOnNothing() throws {
        let (channel, setUps) = try channel(failing: true)
        try channel.writeInbound(ByteBuffer(bytes: [0x16, 0x03]))
        #expect(setUps.asked == [true])
        #expect(!channel.isActive)
        #expect(setUps.added.reads.isEmpty)
    }
}
