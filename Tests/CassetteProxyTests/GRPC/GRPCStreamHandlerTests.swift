import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteGRPC
@testable import CassetteServing

/// `GRPCStreamHandler` on one HTTP/2 stream, frame by frame, replaying from recordings held in
/// memory: how it cuts messages out of DATA frames whatever their boundaries, what a broken
/// or oversized prefix answers, the exact frames of a trailers-only answer, and a replay the
/// proxy's stop ends. Recorded offsets are 0, so nothing waits for the wall clock.
@Suite("GRPCStreamHandler over an embedded stream")
final class GRPCStreamHandlerTests {
    let directory: TemporaryDirectory
    let session: CassetteSession
    let log = LogLines()
    static let path = "/shop.v1.Catalog/GetItem"

    init() async throws {
        directory = try TemporaryDirectory(prefix: "grpc-stream-handler")
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        session = try await CassetteSession.open(store: store, options: CassetteSession.Options())
    }

    /// A unary call recorded answering `request` with `reply` (or trailers only, with `status`).
    static func recording(request: Data, reply: Data?, status: GRPCStatusCode = .ok, message: String = "") -> Conversation {
        var messages = [
            ConversationMessage(direction: .client, kind: .binary, payload: request, offsetMilliseconds: 0),
            ConversationMessage(direction: .client, kind: .close, payload: Data(), offsetMilliseconds: 0),
        ]
        if let reply { messages.append(ConversationMessage(direction: .server, kind: .binary, payload: reply, offsetMilliseconds: 0)) }
        var trailers = HTTPFields()
        trailers[HTTPField.Name("grpc-status")!] = String(status.rawValue)
        if !message.isEmpty { trailers[HTTPField.Name("grpc-message")!] = message }
        return Conversation(
            id: 1, cassette: "dev", url: path, key: "POST \(path)", requestHeaders: [:], subprotocol: nil, extensions: nil, messages: messages,
            end: .closed(by: .server, code: status.rawValue, reason: message),
            grpc: GRPCCallHeads(responseHeaders: reply == nil ? nil : [.contentType: "application/grpc"], trailers: trailers))
    }

    func channel(_ recordings: [Conversation], maxMessage: Int = 64) throws -> EmbeddedChannel {
        let listener = ServingListener(
            session: session, conversations: RecordedConversations(recordings), requestBuilder: ProxyRequestBuilder(upstream: nil),
            settings: ProxySettings(), log: log.proxyLog, writers: ConversationWriters(), journal: nil, sessions: nil, listener: 0,
            upstreamOrigin: nil)
        let service = GRPCService(
            served: listener, schema: ProtoSchema(), maxMessage: maxMessage, reflection: ReflectionFetch(), upstreams: GRPCUpstreamPools())
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(GRPCStreamHandler(service: service))
        return channel
    }

    func open(_ channel: EmbeddedChannel, method: String = "POST", endStream: Bool = false) throws {
        let headers = HPACKHeaders([
            (":method", method), (":scheme", "http"), (":path", Self.path), (":authority", "127.0.0.1"), ("content-type", "application/grpc"),
            ("te", "trailers"),
        ])
        try channel.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: headers, endStream: endStream)))
    }

    func data(_ bytes: [UInt8], endStream: Bool = false, to channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer(bytes: bytes)), endStream: endStream)))
    }

    /// What the handler wrote, in order: `headers(fields, end)`, `data(bytes, end)` or `reset(code)`.
    enum Written: Equatable {
        case headers([String: String], end: Bool)
        case data([UInt8], end: Bool)
        case reset(NIOHTTP2.HTTP2ErrorCode)
    }

    func written(_ channel: EmbeddedChannel) throws -> [Written] {
        channel.embeddedEventLoop.run()
        var frames: [Written] = []
        while let payload = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) {
            switch payload {
            case .headers(let frame):
                frames.append(.headers(Dictionary(frame.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }), end: frame.endStream))
            case .data(let frame):
                guard case .byteBuffer(let buffer) = frame.data else { continue }
                frames.append(.data(Array(buffer.readableBytesView), end: frame.endStream))
            case .rstStream(let code):
                frames.append(.reset(code))
            default:
                continue
            }
        }
        return frames
    }

    /// The one trailers-only answer written, or a failed expectation. `clientOpen`: the client had
    /// not ended its side, so the answer is followed by RST_STREAM(NO_ERROR) (RFC 9113 §8.1).
    func status(
        _ channel: EmbeddedChannel, clientOpen: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (
        code: String?, message: String
    ) {
        var frames = try written(channel)
        if clientOpen {
            #expect(frames.last == .reset(.noError), "the client's open side is reset after the answer: \(frames)", sourceLocation: sourceLocation)
            if frames.last == .reset(.noError) { frames.removeLast() }
        }
        guard frames.count == 1, case .headers(let fields, let end) = frames[0] else {
            Issue.record("expected one trailers-only HEADERS, got \(frames)", sourceLocation: sourceLocation)
            return (nil, "")
        }
        #expect(end, sourceLocation: sourceLocation)
        #expect(fields[":status"] == "200", "gRPC errors are HTTP 200", sourceLocation: sourceLocation)
        #expect(fields["content-type"] == "application/grpc", sourceLocation: sourceLocation)
        return (fields["grpc-status"], GRPCMessageText.decode(fields["grpc-message"] ?? ""))
    }

    static func framed(_ payload: [UInt8]) -> [UInt8] { Array(GRPCFrame(payload: Data(payload)).encoded) }

    @Test func aMessageSplitAcrossDataFramesAnywhereIsReassembledAndReplayed() throws {
        let request: [UInt8] = [0x0A, 0x02, 0x62, 0x31]
        let channel = try channel([Self.recording(request: Data(request), reply: Data([0x12, 0x01, 0x44]))])
        try open(channel)
        let bytes = Self.framed(request)
        // Inside the prefix, then inside the payload.
        try data(Array(bytes[0..<2]), to: channel)
        try data(Array(bytes[2..<6]), to: channel)
        try data(Array(bytes[6...]), endStream: true, to: channel)
        let frames = try written(channel)
        #expect(
            frames == [
                .headers([":status": "200", "content-type": "application/grpc"], end: false), .data(Self.framed([0x12, 0x01, 0x44]), end: false),
                .headers(["grpc-status": "0"], end: true),
            ], "\(frames)")
    }

    @Test func aCompressedFlagOtherThanZeroOrOneIsInternal() throws {
        let channel = try channel([Self.recording(request: Data([1]), reply: Data([2]))])
        try open(channel)
        try data([7, 0, 0, 0, 1, 0], to: channel)
        let (code, message) = try status(channel)
        #expect(code == String(GRPCStatusCode.internalError.rawValue))
        #expect(message.contains("compressed flag 7"), "\(message)")
    }

    @Test func aBodyThatEndsInsideAMessageIsInternal() throws {
        let channel = try channel([Self.recording(request: Data([1]), reply: Data([2]))])
        try open(channel)
        // The prefix promises 10 bytes; 3 come, then the end of the stream.
        try data([0, 0, 0, 0, 10, 1, 2, 3], endStream: true, to: channel)
        let (code, message) = try status(channel, clientOpen: false)
        #expect(code == String(GRPCStatusCode.internalError.rawValue))
        #expect(message.contains("ended 7 bytes short"), "\(message)")
    }

    @Test func aPrefixOverTheLimitIsResourceExhaustedBeforeItsBytesCome() throws {
        let channel = try channel([Self.recording(request: Data([1]), reply: Data([2]))], maxMessage: 64)
        try open(channel)
        // The prefix alone (65 bytes announced): refused at once.
        try data([0, 0, 0, 0, 65], to: channel)
        let (code, message) = try status(channel)
        #expect(code == String(GRPCStatusCode.resourceExhausted.rawValue))
        #expect(message.contains("65 bytes exceeds the limit of 64"), "\(message)")
        // What the client sends after the answer is dropped, not answered again.
        try data([1, 2, 3], endStream: true, to: channel)
        #expect(try written(channel).isEmpty)
    }

    @Test func aRecordedTrailersOnlyAnswerIsReplayedAsOneHeadersFrame() throws {
        let request: [UInt8] = [0x0A, 0x04, 0x6E, 0x6F, 0x70, 0x65]
        let channel = try channel([Self.recording(request: Data(request), reply: nil, status: .notFound, message: "item nope does not exist")])
        try open(channel)
        try data(Self.framed(request), endStream: true, to: channel)
        let frames = try written(channel)
        #expect(
            frames == [
                .headers(
                    [":status": "200", "content-type": "application/grpc", "grpc-status": "5", "grpc-message": "item nope does not exist"], end: true)
            ], "\(frames)")
    }

    @Test func aStreamThatIsNotAPostIsInternal() throws {
        let channel = try channel([Self.recording(request: Data([1]), reply: Data([2]))])
        try open(channel, method: "GET", endStream: true)
        let (code, message) = try status(channel, clientOpen: false)
        #expect(code == String(GRPCStatusCode.internalError.rawValue))
        #expect(message.contains("a gRPC call is a POST"), "\(message)")
    }

    @Test func theProxyStoppingEndsAReplayWhoseClientStillSendsWithUnavailable() throws {
        let channel = try channel([Self.recording(request: Data([1]), reply: Data([2]))])
        try open(channel)
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        let (code, message) = try status(channel)
        #expect(code == String(GRPCStatusCode.unavailable.rawValue))
        #expect(message.contains("shutting down"), "\(message)")
    }

    @Test func theProxyStoppingResetsTheStreamOfAClientThatNeverHalfClosesAfterItsTrailers() throws {
        let channel = try channel([Self.recording(request: Data([1]), reply: Data([2]))])
        try open(channel)
        try data(Self.framed([1]), to: channel)
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        let frames = try written(channel)
        // The trailers first, with END_STREAM, then the reset that ends the client's side: a
        // graceful shutdown waiting for the stream need not wait for the client.
        #expect(frames.count == 2, "\(frames)")
        guard case .headers(let fields, end: true)? = frames.first else {
            Issue.record("expected the trailers first: \(frames)")
            return
        }
        #expect(fields["grpc-status"] == String(GRPCStatusCode.unavailable.rawValue))
        #expect(frames.last == .reset(.noError), "\(frames)")
    }

    @Test func aCallWhoseClientHasEndedIsNotReset() throws {
        let request: [UInt8] = [0x0A, 0x02, 0x62, 0x31]
        let channel = try channel([Self.recording(request: Data(request), reply: Data([0x12, 0x01, 0x44]))])
        try open(channel)
        try data(Self.framed(request), endStream: true, to: channel)
        let frames = try written(channel)
        #expect(frames.last == .headers(["grpc-status": "0"], end: true), "\(frames)")
        #expect(!frames.contains(.reset(.noError)), "\(frames)")
    }

    @Test func theProxyStoppingLetsACallWhoseClientHasEndedFinish() throws {
        let channel = try channel([Self.recording(request: Data([1]), reply: Data([2]))])
        try open(channel)
        try data(Self.framed([1]), endStream: true, to: channel)
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        let frames = try written(channel)
        #expect(frames.last == .headers(["grpc-status": "0"], end: true), "\(frames)")
    }
}
