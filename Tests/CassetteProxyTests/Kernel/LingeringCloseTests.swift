import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import CassetteKernel

/// `LingeringClose` over an `EmbeddedChannel`: the answers go out, the write side is shut, and
/// whatever the client still sends is read and thrown away, never parsed, until the client closes
/// its side, fails, or the limit passes. `SocketStandIn` plays the socket's half-closure, which
/// `EmbeddedChannel` lacks.
///
/// The quiet period is not tested here: the handler measures it with `NIODeadline.now()`, the
/// wall clock, which `EmbeddedEventLoop.advanceTime` does not move, so its check would run
/// again and again until two real seconds had passed.
@Suite("Lingering close over an embedded channel")
struct LingeringCloseTests {
    /// A connection as the kernel's pipeline has it: the socket, the request decoder, and a
    /// handler behind it that answers (here: a recorder whose context starts the close).
    struct Connection {
        let channel = EmbeddedChannel()
        let socket: SocketStandIn
        let behind = InboundRecorder<HTTPServerRequestPart>()

        init(socket: SocketStandIn = SocketStandIn(), keepsRequestHeadBytes: Bool = false) throws {
            self.socket = socket
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(socket)
            if keepsRequestHeadBytes {
                let escaper = RequestHeadBytesHandler()
                try pipeline.addHandler(escaper)
                try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
                try pipeline.addHandler(RequestHeadBytesHandler.Observer(escaper))
            } else {
                try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
            }
            try pipeline.addHandler(behind)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        }

        /// What the handler behind the decoder does after its error answer.
        func startLingering() throws {
            LingeringClose.start(try channel.pipeline.syncOperations.context(handler: behind))
        }

        var isLingering: Bool {
            (try? channel.pipeline.syncOperations.handler(type: LingeringClose.self)) != nil
        }
    }

    @Test func theAnswerGoesOutThenTheWriteSideIsShutAndTheConnectionStaysOpenToDrain() throws {
        let connection = try Connection()
        connection.channel.writeAndFlush(ByteBuffer(string: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"), promise: nil)
        try connection.startLingering()

        #expect(try connection.channel.writtenText() == "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        #expect(connection.socket.events == [.write, .flush, .outputClose])
        #expect(connection.channel.isActive)
        #expect(connection.isLingering)
    }

    @Test func itGoesInFrontOfTheDecoderSoWhatStillArrivesIsNeverParsed() throws {
        let connection = try Connection()
        try connection.startLingering()
        #expect(connection.channel.handlerTypes == ["SocketStandIn", "LingeringClose", "ByteToMessageHandler", "InboundRecorder"])

        // A pipelined request and bytes no parser would take: neither reaches the decoder.
        try connection.channel.writeInbound(ByteBuffer(string: "GET /next HTTP/1.1\r\nHost: x\r\n\r\n"))
        try connection.channel.writeInbound(ByteBuffer(bytes: [0x16, 0x03, 0x01, 0x00, 0xFF]))
        #expect(connection.behind.reads.isEmpty)
        #expect(connection.behind.errors.isEmpty)
        #expect(try connection.channel.writtenBytes().isEmpty)
        #expect(connection.channel.isActive)
    }

    @Test func itGoesInFrontOfTheRequestHeadEscaperWhenThePipelineHasOne() throws {
        let connection = try Connection(keepsRequestHeadBytes: true)
        try connection.startLingering()
        #expect(connection.channel.handlerTypes.prefix(3) == ["SocketStandIn", "LingeringClose", "RequestHeadBytesHandler"])
        try connection.channel.writeInbound(ByteBuffer(bytes: Array("GET / HTTP/1.1\r\nX-Name: caf".utf8) + [0xE9] + Array("\r\n\r\n".utf8)))
        #expect(connection.behind.reads.isEmpty)
    }

    @Test func withNoDecoderItGoesFirst() throws {
        let channel = EmbeddedChannel()
        let behind = InboundRecorder<ByteBuffer>()
        try channel.pipeline.syncOperations.addHandler(behind)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        LingeringClose.start(try channel.pipeline.syncOperations.context(handler: behind))
        // The half-closure went to the channel itself, which `EmbeddedChannel` takes as a close.
        #expect(!channel.isActive)
        #expect(channel.handlerTypes.first == "LingeringClose")
    }

    @Test func theClientClosingItsSideEndsTheDrain() throws {
        let connection = try Connection()
        try connection.startLingering()
        try connection.channel.writeInbound(ByteBuffer(string: "still sending"))
        #expect(connection.channel.isActive)
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(!connection.channel.isActive)
        // Consumed: the handlers behind never see the event.
        #expect(connection.behind.events.isEmpty)
    }

    @Test func aReadErrorEndsTheDrain() throws {
        let connection = try Connection()
        try connection.startLingering()
        connection.channel.pipeline.fireErrorCaught(connectionReset)
        #expect(!connection.channel.isActive)
        #expect(connection.behind.errors.isEmpty)
    }

    @Test func aClientThatKeepsSendingIsCutOffOnceTheLimitHasPassed() throws {
        let connection = try Connection()
        try connection.startLingering()
        let loop = connection.channel.embeddedEventLoop
        // One byte a second: never quiet, so only the limit ends it.
        for _ in 0..<9 {
            loop.advanceTime(by: .seconds(1))
            try connection.channel.writeInbound(ByteBuffer(string: "x"))
            #expect(connection.channel.isActive)
        }
        loop.advanceTime(to: loop.now + LingeringClose.limit - .seconds(9) - .nanoseconds(1))
        #expect(connection.channel.isActive)
        loop.advanceTime(by: .nanoseconds(1))
        #expect(!connection.channel.isActive)
        #expect(connection.behind.reads.isEmpty)
    }

    @Test func itAsksForReadsItselfOnStartAndAfterEveryBatch() throws {
        let connection = try Connection()
        let before = connection.socket.reads
        try connection.startLingering()
        #expect(connection.socket.reads == before + 1)
        // Two reads in one batch: one more read asked for, once the batch is complete.
        connection.channel.pipeline.fireChannelRead(ByteBuffer(string: "a"))
        connection.channel.pipeline.fireChannelRead(ByteBuffer(string: "b"))
        #expect(connection.socket.reads == before + 1)
        connection.channel.pipeline.fireChannelReadComplete()
        #expect(connection.socket.reads == before + 2)
    }

    @Test func aSecondStartChangesNothing() throws {
        let connection = try Connection()
        try connection.startLingering()
        try connection.startLingering()
        #expect(connection.socket.outputCloses == 1)
        #expect(connection.channel.handlerTypes.filter { $0 == "LingeringClose" }.count == 1)
        #expect(connection.channel.isActive)
    }

    @Test func aSocketThatCannotShutItsWriteSideIsClosed() throws {
        let connection = try Connection(socket: SocketStandIn(refusesHalfClosure: true))
        try connection.startLingering()
        #expect(connection.socket.outputCloses == 1)
        #expect(!connection.channel.isActive)
    }
}
