import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOWebSocket
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteServing
@testable import CassetteWebSocket

/// `ConversationReplayHandler` on a switched connection, frame by frame: what a recorded
/// conversation answers a live client turn by turn, with the recorded delays on the embedded
/// loop's clock, and how it ends (a replayed close or drop, the client's close, a miss with 1008
/// naming what was expected, a refused frame, the proxy stopping).
///
/// The handler measures delays from `NIODeadline.now()`, the wall clock, while `EmbeddedEventLoop`
/// starts its own at zero: a delayed action is due at a wall-clock deadline, so the tests move
/// the loop to deadlines read from `NIODeadline.now()`, from below (not yet due) or from above
/// (due), never waiting for the wall clock.
@Suite("Conversation replay over an embedded channel")
final class ConversationReplayHandlerTests {
    let directory: TemporaryDirectory
    let session: CassetteSession
    let log = LogLines()

    init() async throws {
        directory = try TemporaryDirectory(prefix: "replay-handler")
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        session = try await CassetteSession.open(store: store, options: CassetteSession.Options())
    }

    static func client(_ text: String, at milliseconds: Double = 0) -> ConversationMessage {
        ConversationMessage(direction: .client, kind: .text, payload: Data(text.utf8), offsetMilliseconds: milliseconds)
    }

    static func server(_ text: String, at milliseconds: Double = 0, fragments: [Int]? = nil) -> ConversationMessage {
        ConversationMessage(direction: .server, kind: .text, payload: Data(text.utf8), fragments: fragments, offsetMilliseconds: milliseconds)
    }

    static func serverClose(_ code: UInt16, _ reason: String, at milliseconds: Double = 0) -> ConversationMessage {
        var payload = Data([UInt8(code >> 8), UInt8(code & 0xFF)])
        payload.append(Data(reason.utf8))
        return ConversationMessage(direction: .server, kind: .close, payload: payload, offsetMilliseconds: milliseconds)
    }

    static func conversation(_ messages: [ConversationMessage], end: ConversationEnd = .cut) -> Conversation {
        Conversation(
            cassette: "dev", url: "ws://127.0.0.1:1/chat", key: "GET /chat", requestHeaders: [:], subprotocol: nil, extensions: nil, messages: messages,
            end: end)
    }

    /// A switched connection replaying `conversation`; `timing` is `--ws-timing` (0: `fast`).
    func channel(
        _ conversation: Conversation, timing: Double = 0, track: JournalConversation? = nil, deflate: PerMessageDeflate? = nil
    ) throws -> EmbeddedChannel {
        var options = WebSocketOptions()
        options.timingScale = timing
        let parts = ConversationReplayHandler.Parts(
            keyer: session.keyer, session: session, options: options, log: log.proxyLog, logTarget: "/chat", secrets: SecretValues(), track: track,
            key: conversation.key, deflate: deflate)
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        try channel.pipeline.syncOperations.addHandler(try ConversationReplayHandler(MultiplexedReplay(conversation), parts: parts))
        return channel
    }

    func send(_ text: String, to channel: EmbeddedChannel) throws {
        try channel.writeInbound(WebSocketFrame.fromClient(.text, text))
    }

    /// The text of every frame written, in order, and that none was masked.
    func texts(_ channel: EmbeddedChannel) throws -> [String] {
        let frames = try channel.writtenFrames()
        #expect(frames.allSatisfy { $0.maskKey == nil })
        return frames.map { $0.opcode == .connectionClose ? "close \($0.closeFields.code.map(String.init) ?? "") \($0.closeFields.reason)" : $0.text }
    }

    @Test func theServerMessagesRecordedBeforeTheClientsFirstGoOutOnOpen() throws {
        let channel = try channel(Self.conversation([Self.server("welcome"), Self.server("motd"), Self.client("hi"), Self.server("hello")]))
        #expect(try texts(channel) == ["welcome", "motd"])
    }

    @Test func eachMatchingClientMessageGetsTheServerMessagesRecordedAfterIt() throws {
        let track = JournalConversation()
        let channel = try channel(
            Self.conversation([Self.client("a"), Self.server("A1"), Self.server("A2"), Self.client("b"), Self.server("B")]), track: track)
        #expect(try texts(channel).isEmpty)
        try send("a", to: channel)
        #expect(try texts(channel) == ["A1", "A2"])
        try send("b", to: channel)
        #expect(try texts(channel) == ["B"])
        #expect(track.current == JournalConversation.State(sent: 2, received: 3, matched: 2, miss: nil, end: nil))
        #expect(channel.isActive)
    }

    @Test func aJSONMessageMatchesItsRecordingWhateverTheOrderOfItsFields() throws {
        let channel = try channel(Self.conversation([Self.client(#"{"op":"subscribe","id":1}"#), Self.server("subscribed")]))
        try send(#"{ "id": 1, "op": "subscribe" }"#, to: channel)
        #expect(try texts(channel) == ["subscribed"])
    }

    @Test func aMessageSentInFragmentsIsMatchedWhole() throws {
        let channel = try channel(Self.conversation([Self.client("hello world"), Self.server("hi")]))
        try channel.writeInbound(WebSocketFrame.fromClient(.text, "hello ", fin: false))
        #expect(try texts(channel).isEmpty)
        try channel.writeInbound(WebSocketFrame.fromClient(.continuation, "world"))
        #expect(try texts(channel) == ["hi"])
    }

    @Test func aMismatchClosesWith1008NamingTheExpectedMessageAndIsCountedAsAMiss() throws {
        let track = JournalConversation()
        let channel = try channel(Self.conversation([Self.client("a"), Self.server("A"), Self.client("b"), Self.server("B")]), track: track)
        try send("a", to: channel)
        #expect(try texts(channel) == ["A"])
        try send("c", to: channel)
        #expect(try texts(channel) == ["close 1008 expected text message: b"])
        #expect(session.conversationTally.missed == 1)
        #expect(log.lines.contains("MISS WebSocket /chat: expected text b, received text c; closed with 1008"), "\(log.lines)")
        #expect(track.current.miss == JournalConversation.Miss(expected: "text b", received: "text c"))
        #expect(track.current.end == .closed(by: .server, code: 1008, reason: "expected text message: b"))
        // Once the close is sent, even the expected message answers nothing.
        try send("b", to: channel)
        #expect(try texts(channel).isEmpty)
        #expect(channel.isActive)
        // The client's answering close ends the connection.
        try channel.writeInbound(WebSocketFrame.closeFromClient(code: 1008))
        #expect(!channel.isActive)
    }

    @Test func aMessageOfAnotherKindIsAMiss() throws {
        let channel = try channel(Self.conversation([Self.client("a"), Self.server("A")]))
        try channel.writeInbound(WebSocketFrame.fromClient(.binary, "a"))
        #expect(try texts(channel) == ["close 1008 expected text message: a"])
    }

    @Test func aMessageAfterTheRecordingsLastClientMessageIsAMiss() throws {
        let channel = try channel(Self.conversation([Self.client("a"), Self.server("A")]))
        try send("a", to: channel)
        try send("again", to: channel)
        #expect(try texts(channel) == ["A", "close 1008 the recording has no more client messages"])
        #expect(log.lines.contains { $0.contains("expected nothing (the recording has no more client messages), received text again") })
    }

    @Test func theCloseReasonOfAMissFitsInACloseFrame() throws {
        let expected = String(repeating: "é", count: 200)
        let channel = try channel(Self.conversation([Self.client(expected)]))
        try send("other", to: channel)
        let close = try #require(try channel.writtenFrames().last)
        #expect(close.closeFields.code == 1008)
        #expect(close.closeFields.reason.utf8.count <= 123)
        #expect(close.closeFields.reason.hasPrefix("expected text message: éé"))
    }

    @Test func aPingGetsAPongWithItsPayloadAndAPongIsIgnored() throws {
        let channel = try channel(Self.conversation([Self.client("a"), Self.server("A")]))
        try channel.writeInbound(WebSocketFrame.fromClient(.ping, "beat"))
        let pong = try #require(try channel.writtenFrames().first)
        #expect(pong.opcode == .pong && pong.text == "beat" && pong.maskKey == nil)
        try channel.writeInbound(WebSocketFrame.fromClient(.pong, "late"))
        #expect(try channel.writtenFrames().isEmpty)
        // Neither counts as a turn.
        try send("a", to: channel)
        #expect(try texts(channel) == ["A"])
    }

    @Test func aRecordedFragmentedMessageIsSentInItsRecordedFragments() throws {
        let channel = try channel(Self.conversation([Self.client("a"), Self.server("hello world", fragments: [5, 1, 5])]))
        try send("a", to: channel)
        let frames = try channel.writtenFrames()
        #expect(frames.map(\.opcode) == [.text, .continuation, .continuation])
        #expect(frames.map(\.fin) == [false, false, true])
        #expect(frames.map(\.text) == ["hello", " ", "world"])
    }

    @Test func theRecordedServerCloseIsReplayedAndTheClientsAnswerEndsTheConnection() throws {
        let track = JournalConversation()
        let channel = try channel(
            Self.conversation([Self.client("bye"), Self.serverClose(4000, "done")], end: .closed(by: .server, code: 4000, reason: "done")), track: track)
        try send("bye", to: channel)
        #expect(try texts(channel) == ["close 4000 done"])
        #expect(track.current.end == .closed(by: .server, code: 4000, reason: "done"))
        #expect(channel.isActive)
        try channel.writeInbound(WebSocketFrame.closeFromClient(code: 4000))
        #expect(!channel.isActive)
    }

    @Test func aClientThatNeverAnswersTheCloseIsCutOffAfterFiveSeconds() throws {
        let channel = try channel(Self.conversation([Self.serverClose(1000, "")], end: .closed(by: .server, code: 1000, reason: "")))
        #expect(try texts(channel) == ["close 1000 "])
        channel.embeddedEventLoop.advanceTime(by: .seconds(5) - .nanoseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
    }

    @Test func aRecordedDropClosesWithoutACloseFrame() throws {
        let track = JournalConversation()
        let channel = try channel(Self.conversation([Self.client("a"), Self.server("A")], end: .dropped(by: .server)), track: track)
        try send("a", to: channel)
        #expect(try texts(channel) == ["A"])
        #expect(!channel.isActive)
        #expect(track.current.end == .dropped(by: .server))
    }

    @Test func theClientsCloseIsAnsweredWithItsCodeAndReason() throws {
        let track = JournalConversation()
        let channel = try channel(Self.conversation([Self.client("a"), Self.server("A")]), track: track)
        try channel.writeInbound(WebSocketFrame.closeFromClient(code: 1000, reason: "bye"))
        #expect(try texts(channel) == ["close 1000 bye"])
        #expect(track.current.end == .closed(by: .client, code: 1000, reason: "bye"))
        // RFC 6455 §5.5.1: with both close frames exchanged, the server closes the connection first.
        withKnownIssue("the handler waits up to five seconds for an answer to a close that was itself the answer") {
            #expect(!channel.isActive)
        }
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(!channel.isActive)
    }

    @Test(arguments: [1.0, 0.5])
    func eachActionWaitsForItsRecordedDelayScaledFromTheOneBefore(scale: Double) throws {
        let delay = TimeAmount.seconds(Int64(60 * scale))
        // The client's message at 1 s, the answers a minute after it and a minute after each other.
        let conversation = Self.conversation([Self.client("a", at: 1000), Self.server("A1", at: 61000), Self.server("A2", at: 121_000)])
        let channel = try channel(conversation, timing: scale)
        let loop = channel.embeddedEventLoop
        let beforeMessage = NIODeadline.now()
        try send("a", to: channel)
        let afterMessage = NIODeadline.now()
        loop.advanceTime(to: beforeMessage + delay - .nanoseconds(1))
        #expect(try texts(channel).isEmpty)
        loop.advanceTime(to: afterMessage + delay)
        #expect(try texts(channel) == ["A1"])
        // The second counts from the first's sending, which came after `afterMessage`.
        let afterFirst = NIODeadline.now()
        #expect(try texts(channel).isEmpty)
        loop.advanceTime(to: afterFirst + delay)
        #expect(try texts(channel) == ["A2"])
    }

    @Test func withFastTimingNothingWaits() throws {
        let conversation = Self.conversation([Self.client("a", at: 1000), Self.server("A1", at: 3_600_000), Self.server("A2", at: 7_200_000)])
        let channel = try channel(conversation, timing: 0)
        try send("a", to: channel)
        #expect(try texts(channel) == ["A1", "A2"])
    }

    @Test func aStoppingProxyClosesWith1001AndTheConnectionSoonAfter() throws {
        let channel = try channel(Self.conversation([Self.client("a"), Self.server("A")]))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(try texts(channel) == ["close 1001 cassette is stopping"])
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(100) - .nanoseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
    }

    /// RFC 6455 §5.5.1: an endpoint sends one close frame at most.
    @Test func aStoppingProxySendsNoSecondCloseFrame() throws {
        let channel = try channel(Self.conversation([Self.serverClose(4000, "done")], end: .closed(by: .server, code: 4000, reason: "done")))
        #expect(try texts(channel) == ["close 4000 done"])
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        let after = try texts(channel)
        withKnownIssue("on ChannelShouldQuiesceEvent the handler forgets the close it sent and sends another") {
            #expect(after.isEmpty)
        }
    }

    @Test func anUnmaskedClientFrameClosesWith1002() throws {
        let channel = try channel(Self.conversation([Self.client("a"), Self.server("A")]))
        try channel.writeInbound(WebSocketFrame.fromServer(.text, "a"))
        #expect(try texts(channel) == ["close 1002 client frames must be masked"])
        #expect(log.lines.contains("WebSocket /chat: client frames must be masked; closed with 1002"))
    }

    @Test func aFrameTheDecoderRefusedAsTooLargeClosesWith1009AndOtherErrorsCloseAtOnce() throws {
        let channel = try channel(Self.conversation([Self.client("a")]))
        channel.pipeline.fireErrorCaught(NIOWebSocketError.invalidFrameLength)
        #expect(try texts(channel) == ["close 1009 message larger than --ws-max-message"])
        #expect(channel.isActive)
        let other = try self.channel(Self.conversation([Self.client("a")]))
        other.pipeline.fireErrorCaught(connectionReset)
        #expect(!other.isActive)
    }

    @Test func aClientGoneWithoutACloseIsADropUnlessTheConversationHadEnded() throws {
        let dropped = JournalConversation()
        let channel = try channel(Self.conversation([Self.client("a")]), track: dropped)
        try channel.close().wait()
        channel.embeddedEventLoop.run()
        #expect(dropped.current.end == .dropped(by: .client))

        let closed = JournalConversation()
        let other = try self.channel(Self.conversation([Self.client("a")]), track: closed)
        try other.writeInbound(WebSocketFrame.closeFromClient(code: 1000))
        try other.close().wait()
        other.embeddedEventLoop.run()
        #expect(closed.current.end == .closed(by: .client, code: 1000, reason: ""))
    }

    @Test func underPermessageDeflateMessagesAreCompressedAndTheClientsInflatedBeforeMatching() throws {
        let channel = try channel(Self.conversation([Self.client("question"), Self.server("answer")]), deflate: PerMessageDeflate())
        let compressed = try MessageDeflater(PerMessageDeflate()).deflate(ByteBuffer(string: "question"), allocator: ByteBufferAllocator())
        var frame = WebSocketFrame.fromClient(.text, compressed)
        frame.rsv1 = true
        try channel.writeInbound(frame)
        let answer = try #require(try channel.writtenFrames().first)
        #expect(answer.rsv1 && answer.opcode == .text)
        let inflated = try MessageInflater().inflate(Data(answer.data.readableBytesView), limit: 1024)
        #expect(inflated == .success(Data("answer".utf8)))
    }
}
