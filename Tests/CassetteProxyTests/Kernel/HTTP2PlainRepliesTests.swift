import Foundation
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteKernel
@testable import CassetteServing

/// The replay hot path over HTTP/2 at the connection (`HTTP2PlainReplies`), over embedded
/// channels: alone in front of what would be the multiplexer, with a replay-only listener's own
/// responder, and in the whole pipeline a listener builds, spoken to by swift-nio-http2's client.
@Suite("HTTP/2 plain replies at the connection")
final class HTTP2PlainRepliesTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "plain-h2")
    }

    static func recording(_ target: String, method: HTTPMethod = .get, body: String, status: Int = 200) -> Interaction {
        Interaction(
            cassette: "dev", method: method, url: "http://127.0.0.1:1\(target)", key: "\(method.rawValue) \(target)", statusCode: status,
            responseHeaders: [.contentType: "text/plain"], responseBody: Data(body.utf8))
    }

    /// `GET /a`, `HEAD /h`, and `GET /seq` recorded twice (sequence 0 then 1).
    static let recordings = [
        recording("/a", body: "first"), recording("/h", method: .head, body: ""), recording("/seq", body: "one", status: 503), recording("/seq", body: "two"),
    ]

    /// A replay-only listener's pipeline over `recordings`, as `cassette replay` builds it.
    func replayPipeline(latency: ProxySettings.Latency = .none) async throws -> ServingPipeline {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        try await store.record(batch: Self.recordings)
        var settings = ProxySettings()
        settings.logRequests = false
        settings.port = 0
        settings.latency = latency
        let served = try await ServedCassette.open(
            "dev", policy: ServingPolicy(mode: .replayOnly), role: .proxy(sessionsOnly: false), context: .testing(store: store, settings: settings))
        return served.reversePipelines()[0]
    }

    /// The handler alone, answering for `pipeline`'s listener; what it passes on stays in the
    /// channel's inbound buffer, where the multiplexer would get it.
    func handlerChannel(_ pipeline: ServingPipeline) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        let route = ServingRoute(parts: pipeline.parts, targetCache: .makeBoxSendingValue(ReplayTargetCache(), eventLoop: channel.eventLoop))
        try channel.pipeline.syncOperations.addHandler(HTTP2PlainReplies(responder: route, streamSwitches: try #require(pipeline.http2).streamSwitches))
        return channel
    }

    static func request(_ path: String, method: String = "GET", _ extra: [(String, String)] = []) -> HPACKHeaders {
        HPACKHeaders([(":method", method), (":path", path), (":scheme", "http"), (":authority", "x")] + extra)
    }

    static func headers(_ stream: HTTP2StreamID, _ headers: HPACKHeaders, endStream: Bool = true) -> HTTP2Frame {
        HTTP2Frame(streamID: stream, payload: .headers(.init(headers: headers, endStream: endStream)))
    }

    /// The frames the handler wrote, as (stream, status or body, ends the stream).
    static func written(_ channel: EmbeddedChannel) throws -> [(HTTP2StreamID, String, Bool)] {
        var frames: [(HTTP2StreamID, String, Bool)] = []
        while let frame = try channel.readOutbound(as: HTTP2Frame.self) {
            switch frame.payload {
            case .headers(let headers): frames.append((frame.streamID, headers.headers.first(name: ":status") ?? "?", headers.endStream))
            case .data(let data):
                guard case .byteBuffer(let buffer) = data.data else { continue }
                frames.append((frame.streamID, String(buffer: buffer), data.endStream))
            default: frames.append((frame.streamID, "\(frame.payload)", false))
            }
        }
        return frames
    }

    static func passed(_ channel: EmbeddedChannel) throws -> [HTTP2Frame] {
        var frames: [HTTP2Frame] = []
        while let frame = try channel.readInbound(as: HTTP2Frame.self) { frames.append(frame) }
        return frames
    }

    @Test func aPlainRequestIsAnsweredAsFramesOnItsOwnStream() async throws {
        let pipeline = try await replayPipeline()
        let channel = try handlerChannel(pipeline)
        try channel.writeInbound(Self.headers(1, Self.request("/a")))
        try channel.writeInbound(Self.headers(3, Self.request("/h", method: "HEAD")))
        let written = try Self.written(channel)
        #expect(written.map(\.0) == [1, 1, 3])
        #expect(written.map(\.1) == ["200", "first", "200"])
        // The DATA ends stream 1; HEAD's answer is HEADERS that end stream 3.
        #expect(written.map(\.2) == [false, true, true])
        #expect(try Self.passed(channel).isEmpty)
        #expect(pipeline.parts.responder.session.statistics.replayed == 2)
        _ = try channel.finish()
    }

    @Test func framesOfAStreamAnsweredHereStopHereUntilItCloses() async throws {
        let channel = try handlerChannel(try await replayPipeline())
        try channel.writeInbound(Self.headers(1, Self.request("/a")))
        _ = try Self.written(channel)
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .windowUpdate(windowSizeIncrement: 100)))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .priority(.init(exclusive: false, dependency: 0, weight: 16))))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .rstStream(.cancel)))
        try channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 7), ack: false)))
        #expect(try Self.passed(channel).map(\.streamID) == [.rootStream])
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 1, reason: nil))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .windowUpdate(windowSizeIncrement: 100)))
        #expect(try Self.passed(channel).map(\.streamID) == [1])
        _ = try channel.finish()
    }

    @Test func whatIsNotAPlainReplayReachesTheMultiplexerUnpicked() async throws {
        let pipeline = try await replayPipeline()
        let channel = try handlerChannel(pipeline)
        // A request with a body: its HEADERS do not end the stream.
        try channel.writeInbound(Self.headers(1, Self.request("/a", method: "POST", [("content-type", "application/json")]), endStream: false))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .data(.init(data: .byteBuffer(ByteBuffer(string: "{}")), endStream: true))))
        // The gRPC module's stream, though it would be plain otherwise.
        try channel.writeInbound(Self.headers(3, Self.request("/a", [("content-type", "application/grpc")])))
        // A session's request and one with a body announced: not plain.
        try channel.writeInbound(Self.headers(5, Self.request("/a", [("x-cassette-session", "dev")])))
        try channel.writeInbound(Self.headers(7, Self.request("/a", method: "DELETE", [("content-length", "0")])))
        // POST without a body: the codec gives it `content-length: 0`, which is not plain.
        try channel.writeInbound(Self.headers(9, Self.request("/a", method: "POST")))
        // A control path.
        try channel.writeInbound(Self.headers(11, Self.request("/__cassette/health")))
        // Trailers on an open stream end it with HEADERS too.
        try channel.writeInbound(Self.headers(13, Self.request("/a", method: "POST", [("content-type", "application/json")]), endStream: false))
        try channel.writeInbound(Self.headers(13, HPACKHeaders([("x-trailer", "1")])))
        let passed = try Self.passed(channel)
        #expect(passed.map(\.streamID) == [1, 1, 3, 5, 7, 9, 11, 13, 13])
        #expect(try Self.written(channel).isEmpty)
        let statistics = pipeline.parts.responder.session.statistics
        #expect(statistics.replayed == 0 && statistics.missed == 0)
        _ = try channel.finish()
    }

    @Test func aMissIsCountedOnceAndLeftToTheStream() async throws {
        let pipeline = try await replayPipeline()
        let channel = try handlerChannel(pipeline)
        try channel.writeInbound(Self.headers(1, Self.request("/nowhere")))
        #expect(try Self.passed(channel).map(\.streamID) == [1])
        #expect(try Self.written(channel).isEmpty)
        #expect(pipeline.parts.responder.session.statistics.missed == 1)
        _ = try channel.finish()
    }

    @Test func theRequestHeadIsTheCodecs() throws {
        let head = try #require(HTTP2PlainReplies.requestHead(Self.request("/p?q=1", [("accept", "*/*"), ("x-b", "2")])))
        #expect(head.version.major == 2 && head.method == .GET && head.uri == "/p?q=1")
        #expect(head.headers.map(\.name) == ["host", "accept", "x-b"])
        #expect(head.headers.first(name: "host") == "x")
        let withHost = try #require(HTTP2PlainReplies.requestHead(Self.request("/", [("host", "h")])))
        #expect(withHost.headers.map(\.value) == ["h"])
        #expect(HTTP2PlainReplies.requestHead(HPACKHeaders([(":method", "GET"), (":path", "/"), (":authority", "x")])) == nil, "no :scheme")
        #expect(HTTP2PlainReplies.requestHead(Self.request("/", [(":path", "/b")])) == nil, "two :path")
        #expect(HTTP2PlainReplies.requestHead(Self.request("/a\r\nx: y")) == nil, "CR LF in :path")
        #expect(HTTP2PlainReplies.requestHead(Self.request("/", method: "OPTIONS")) == nil)
    }

    // MARK: The whole pipeline, spoken to by swift-nio-http2's client

    /// A listener's connection (`ServingPipeline.configure`) and a client connection with
    /// `NIOHTTP2Handler` alone, which writes and reads frames of any stream.
    func connectionPair(_ pipeline: ServingPipeline) async throws -> (client: EmbeddedChannel, server: EmbeddedChannel) {
        let server = EmbeddedChannel()
        try pipeline.configure(server.pipeline.syncOperations, loop: ConnectionLoop(logShard: 0, storage: LoopStorage(on: server.eventLoop)))
        try await server.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        let client = EmbeddedChannel()
        try client.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .client))
        try await client.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        return (client, server)
    }

    /// Moves bytes both ways until neither side has more to say.
    func exchange(_ client: EmbeddedChannel, _ server: EmbeddedChannel) throws {
        var moved = true
        while moved {
            moved = false
            client.embeddedEventLoop.run()
            while let bytes = try client.readOutbound(as: ByteBuffer.self) {
                moved = true
                try server.writeInbound(bytes)
            }
            server.embeddedEventLoop.run()
            while let bytes = try server.readOutbound(as: ByteBuffer.self) {
                moved = true
                try client.writeInbound(bytes)
            }
        }
    }

    /// The answers the client got, by stream: status, then body.
    static func answers(_ client: EmbeddedChannel) throws -> [HTTP2StreamID: String] {
        var answers: [HTTP2StreamID: String] = [:]
        while let frame = try client.readInbound(as: HTTP2Frame.self) {
            guard frame.streamID != .rootStream else { continue }
            switch frame.payload {
            case .headers(let headers): answers[frame.streamID, default: ""] += headers.headers.first(name: ":status") ?? ""
            case .data(let data):
                // The codec ends a stream with an empty DATA frame of its own.
                if case .byteBuffer(let buffer) = data.data, buffer.readableBytes > 0 {
                    answers[frame.streamID, default: ""] += " " + String(buffer: buffer)
                }
            default: break
            }
        }
        return answers
    }

    func ask(_ paths: [String], client: EmbeddedChannel, server: EmbeddedChannel, firstStream: Int = 1) throws {
        for (offset, path) in paths.enumerated() {
            client.write(Self.headers(HTTP2StreamID(firstStream + 2 * offset), Self.request(path)), promise: nil)
        }
        client.flush()
        try exchange(client, server)
    }

    @Test(arguments: [ProxySettings.Latency.none, .fixed(.milliseconds(5))])
    func aSequenceReplaysInOrderOnOneConnectionAndAMissCountsOnce(latency: ProxySettings.Latency) async throws {
        // Without a latency the connection answers the hits; with one every pick is handed to its stream.
        let pipeline = try await replayPipeline(latency: latency)
        let (client, server) = try await connectionPair(pipeline)
        try exchange(client, server)
        try ask(["/seq", "/seq"], client: client, server: server)
        try ask(["/seq", "/nowhere"], client: client, server: server, firstStream: 5)
        server.embeddedEventLoop.advanceTime(by: .milliseconds(20))
        try exchange(client, server)
        let answers = try Self.answers(client)
        #expect(answers[1] == "503 one" && answers[3] == "200 two" && answers[5] == "200 two", "\(answers)")
        #expect(answers[7]?.hasPrefix("404 ") == true, "\(answers)")
        let statistics = pipeline.parts.responder.session.statistics
        #expect(statistics.replayed == 3 && statistics.missed == 1, "\(statistics)")
        // Each answered stream was closed as its answer ended it, and forgotten.
        #expect(try server.pipeline.syncOperations.handler(type: HTTP2PlainReplies.self).owned.isEmpty)
        _ = try? server.finish()
        _ = try? client.finish()
    }
}
