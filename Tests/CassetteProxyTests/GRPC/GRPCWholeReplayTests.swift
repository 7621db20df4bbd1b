import Foundation
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteGRPC
@testable import CassetteKernel
@testable import CassetteServing

/// gRPC's unary replays answered at the connection (`HTTP2PlainReplies` holding a call's frames
/// for `GRPCService.wholeReplay`), over an embedded channel standing where `NIOHTTP2Handler`
/// would, with a replay-only listener's own pipeline: the frames are the stream path's, and every
/// call the connection does not answer reaches the multiplexer in order, unchanged.
@Suite("gRPC unary replays at the connection")
final class GRPCWholeReplayTests {
    let directory: TemporaryDirectory
    static let path = GRPCStreamHandlerTests.path
    static let request: [UInt8] = [0x0A, 0x02, 0x62, 0x31]
    static let reply: [UInt8] = [0x12, 0x01, 0x44]

    init() throws {
        directory = try TemporaryDirectory(prefix: "grpc-whole")
    }

    /// A replay-only listener's pipeline over one unary recording of `path` (`request` → `reply`).
    func replayPipeline() async throws -> (ServingPipeline, ServedCassette) {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        var recording = GRPCStreamHandlerTests.recording(request: Data(Self.request), reply: Data(Self.reply))
        recording.id = nil
        try await store.storeConversations([recording])
        var settings = ProxySettings()
        settings.logRequests = false
        settings.port = 0
        let served = try await ServedCassette.open(
            "dev", policy: ServingPolicy(mode: .replayOnly), role: .proxy(sessionsOnly: false), context: .testing(store: store, settings: settings))
        return (served.reversePipelines()[0], served)
    }

    func handlerChannel(_ pipeline: ServingPipeline, heldBodyLimit: Int = HTTP2HeldCall.bodyLimit) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        let route = ServingRoute(parts: pipeline.parts, targetCache: .makeBoxSendingValue(ReplayTargetCache(), eventLoop: channel.eventLoop))
        try channel.pipeline.syncOperations.addHandler(
            HTTP2PlainReplies(responder: route, streamSwitches: try #require(pipeline.http2).streamSwitches, heldBodyLimit: heldBodyLimit))
        return channel
    }

    static func call(_ stream: HTTP2StreamID, endStream: Bool = false) -> HTTP2Frame {
        let headers = HPACKHeaders([
            (":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "127.0.0.1"), ("content-type", "application/grpc"), ("te", "trailers"),
        ])
        return HTTP2Frame(streamID: stream, payload: .headers(.init(headers: headers, endStream: endStream)))
    }

    static func data(_ stream: HTTP2StreamID, _ bytes: [UInt8], endStream: Bool = false) -> HTTP2Frame {
        HTTP2Frame(streamID: stream, payload: .data(.init(data: .byteBuffer(ByteBuffer(bytes: bytes)), endStream: endStream)))
    }

    /// A frame as the tests compare them: stream, kind, header fields in order or DATA bytes, end.
    static func describe(_ stream: HTTP2StreamID, _ payload: HTTP2Frame.FramePayload) -> String {
        switch payload {
        case .headers(let headers): "\(Int(stream)) HEADERS \(headers.headers.map { "\($0.name)=\($0.value)" }) end=\(headers.endStream)"
        case .data(let data):
            if case .byteBuffer(let buffer) = data.data {
                "\(Int(stream)) DATA \(Array(buffer.readableBytesView)) end=\(data.endStream)"
            } else {
                "\(Int(stream)) DATA file"
            }
        default: "\(Int(stream)) \(payload)"
        }
    }

    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var frames: [String] = []
        while let frame = try channel.readOutbound(as: HTTP2Frame.self) { frames.append(describe(frame.streamID, frame.payload)) }
        return frames
    }

    static func passed(_ channel: EmbeddedChannel) throws -> [String] {
        var frames: [String] = []
        while let frame = try channel.readInbound(as: HTTP2Frame.self) { frames.append(describe(frame.streamID, frame.payload)) }
        return frames
    }

    @Test func aMatchingUnaryCallIsAnsweredAtTheConnectionWithTheStreamPathsFrames() async throws {
        let (pipeline, served) = try await replayPipeline()
        let channel = try handlerChannel(pipeline)
        try channel.writeInbound(Self.call(1))
        try channel.writeInbound(Self.data(1, GRPCStreamHandlerTests.framed(Self.request), endStream: true))
        let atConnection = try Self.written(channel)
        #expect(try Self.passed(channel).isEmpty)
        #expect(served.conversations.replayCounts.values.reduce(0, +) == 1, "counted once")

        // The same call through the stream path, its frames on stream 1.
        let stream = EmbeddedChannel()
        let switches = try #require(pipeline.http2).streamSwitches
        let taker = try #require(switches.taker(of: HPACKHeaders([("content-type", "application/grpc")])))
        try taker.takeOver(
            stream.pipeline.syncOperations,
            HTTP2TakenStream(headers: HPACKHeaders(), loop: ConnectionLoop(logShard: 0, storage: LoopStorage(on: stream.eventLoop))))
        guard case .headers(let opening) = Self.call(1).payload else { return }
        try stream.writeInbound(HTTP2Frame.FramePayload.headers(opening))
        try stream.writeInbound(
            HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer(bytes: GRPCStreamHandlerTests.framed(Self.request))), endStream: true)))
        stream.embeddedEventLoop.run()
        var viaStream: [String] = []
        while let payload = try stream.readOutbound(as: HTTP2Frame.FramePayload.self) { viaStream.append(Self.describe(1, payload)) }
        #expect(atConnection.count == 3, "\(atConnection)")
        #expect(atConnection == viaStream)
        #expect(served.conversations.replayCounts.values.reduce(0, +) == 2)

        // The stream's last events stop here; its closing clears it.
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .windowUpdate(windowSizeIncrement: 10)))
        #expect(try Self.passed(channel).isEmpty)
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 1, reason: nil))
        _ = try channel.finish()
        _ = try stream.finish()
    }

    @Test func aCallNoRecordingMatchesGoesToItsStreamInOrderUncounted() async throws {
        let (pipeline, served) = try await replayPipeline()
        let channel = try handlerChannel(pipeline)
        let other = GRPCStreamHandlerTests.framed([0x0A, 0x02, 0x62, 0x32])
        try channel.writeInbound(Self.call(1))
        try channel.writeInbound(Self.data(1, Array(other[0..<3])))
        #expect(try Self.passed(channel).isEmpty, "held while the request comes")
        try channel.writeInbound(Self.data(1, Array(other[3...]), endStream: true))
        #expect(try Self.written(channel).isEmpty)
        let passed = try Self.passed(channel)
        #expect(passed.count == 3, "\(passed)")
        #expect(passed.first?.hasPrefix("1 HEADERS") == true)
        #expect(
            Array(passed.dropFirst()) == [
                Self.describe(1, Self.data(1, Array(other[0..<3])).payload), Self.describe(1, Self.data(1, Array(other[3...]), endStream: true).payload),
            ])
        #expect(served.conversations.replayCounts.isEmpty)
        _ = try channel.finish()
    }

    @Test func aClientResetWhileTheRequestComesDropsWhatWasHeld() async throws {
        let (pipeline, served) = try await replayPipeline()
        let channel = try handlerChannel(pipeline)
        try channel.writeInbound(Self.call(1))
        try channel.writeInbound(Self.data(1, Array(GRPCStreamHandlerTests.framed(Self.request).prefix(4))))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .rstStream(.cancel)))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .windowUpdate(windowSizeIncrement: 10)))
        #expect(try Self.passed(channel).isEmpty)
        #expect(try Self.written(channel).isEmpty)
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 1, reason: .cancel))
        // A later call on the connection is answered as ever.
        try channel.writeInbound(Self.call(3))
        try channel.writeInbound(Self.data(3, GRPCStreamHandlerTests.framed(Self.request), endStream: true))
        #expect(try Self.written(channel).count == 3)
        #expect(served.conversations.replayCounts.values.reduce(0, +) == 1)
        _ = try channel.finish()
    }

    @Test func aBodyOverTheLimitGivesUpHoldingInOrder() async throws {
        let (pipeline, served) = try await replayPipeline()
        let channel = try handlerChannel(pipeline, heldBodyLimit: 8)
        try channel.writeInbound(Self.call(1))
        try channel.writeInbound(Self.data(1, [0, 0, 0, 0, 20, 1, 2]))
        #expect(try Self.passed(channel).isEmpty)
        try channel.writeInbound(Self.data(1, [3, 4]))
        let passed = try Self.passed(channel)
        #expect(passed.count == 3, "\(passed)")
        #expect(passed.first?.hasPrefix("1 HEADERS") == true)
        #expect(Array(passed.dropFirst()) == ["1 DATA [0, 0, 0, 0, 20, 1, 2] end=false", "1 DATA [3, 4] end=false"])
        // The rest of the stream goes on as it comes.
        try channel.writeInbound(Self.data(1, [5], endStream: true))
        #expect(try Self.passed(channel) == ["1 DATA [5] end=true"])
        #expect(try Self.written(channel).isEmpty)
        #expect(served.conversations.replayCounts.isEmpty)
        _ = try channel.finish()
    }

    @Test func aFrameAWholeRequestHasNoPlaceForGivesUpHoldingInOrder() async throws {
        let (pipeline, _) = try await replayPipeline()
        let channel = try handlerChannel(pipeline)
        try channel.writeInbound(Self.call(1))
        try channel.writeInbound(Self.data(1, [0, 0]))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: HPACKHeaders([("x-late", "1")])))))
        let passed = try Self.passed(channel)
        #expect(passed.count == 3, "\(passed)")
        #expect(passed.first?.hasPrefix("1 HEADERS") == true)
        #expect(passed.dropFirst().first == "1 DATA [0, 0] end=false")
        #expect(passed.last == "1 HEADERS [\"x-late=1\"] end=false", "\(passed)")
        _ = try channel.finish()
    }

    /// grpcio's client sends a WINDOW_UPDATE on each call's stream right after its HEADERS (seen
    /// with an h2 server): the call is still answered whole, and on the stream path the frames
    /// held keep their order.
    @Test func windowUpdatesAndPrioritiesWhileTheRequestComesAreHeldWithIt() async throws {
        let (pipeline, served) = try await replayPipeline()
        let channel = try handlerChannel(pipeline)
        try channel.writeInbound(Self.call(1))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .windowUpdate(windowSizeIncrement: 5)))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .priority(.init(exclusive: false, dependency: 0, weight: 16))))
        try channel.writeInbound(Self.data(1, GRPCStreamHandlerTests.framed(Self.request), endStream: true))
        #expect(try Self.written(channel).count == 3)
        #expect(try Self.passed(channel).isEmpty)
        #expect(served.conversations.replayCounts.values.reduce(0, +) == 1)

        // A call no recording matches: everything held, in order, to its stream.
        let other = GRPCStreamHandlerTests.framed([0x0A, 0x02, 0x62, 0x32])
        try channel.writeInbound(Self.call(3))
        try channel.writeInbound(HTTP2Frame(streamID: 3, payload: .windowUpdate(windowSizeIncrement: 5)))
        try channel.writeInbound(Self.data(3, other, endStream: true))
        let passed = try Self.passed(channel)
        #expect(passed.count == 3, "\(passed)")
        #expect(passed.first?.hasPrefix("3 HEADERS") == true)
        #expect(passed.dropFirst().first?.contains("windowUpdate") == true, "\(passed)")
        #expect(passed.last == Self.describe(3, Self.data(3, other, endStream: true).payload))
        _ = try channel.finish()
    }
}
