import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket

/// The connection's handlers over an `EmbeddedChannel`, byte by byte and without a socket: the
/// pipeline the server builds (`ServingPipeline`), a replay-only context over a store made here.
@Suite("Proxy connection over an embedded channel")
final class HTTPConnectionHandlerTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "embedded")
    }

    static func recording(_ target: String, body: String, status: Int = 200) -> Interaction {
        Interaction(
            cassette: "dev", method: .get, url: "http://127.0.0.1:1\(target)", key: "GET \(target)", statusCode: status,
            responseHeaders: [.contentType: "text/plain"], responseBody: Data(body.utf8))
    }

    /// A channel whose pipeline replays `interactions`, as `cassette replay` would serve them.
    func replayChannel(_ interactions: [Interaction], maxBodySize: Int = 1024) async throws -> EmbeddedChannel {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        // A cassette with no recording is refused as `cassette replay` refuses it.
        try await store.record(batch: interactions.isEmpty ? [Self.recording("/other", body: "")] : interactions)
        var settings = ProxySettings()
        settings.maxBodySize = maxBodySize
        settings.logRequests = false
        settings.port = 0
        let served = try await ServedCassette.open(
            "dev", policy: ServingPolicy(mode: .replayOnly), role: .proxy(sessionsOnly: false), context: .testing(store: store, settings: settings))
        let pipeline = served.reversePipelines()[0]
        let channel = EmbeddedChannel()
        try pipeline.configure(channel.pipeline.syncOperations, loop: ConnectionLoop(logShard: 0, storage: LoopStorage(on: channel.eventLoop)))
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        return channel
    }

    /// Everything the handlers wrote, as text.
    func written(_ channel: EmbeddedChannel) throws -> String {
        channel.embeddedEventLoop.run()
        var text = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            text += String(buffer: buffer)
        }
        return text
    }

    /// The status lines in `output`, in order (a body runs straight into the next status line).
    static func statuses(_ output: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "HTTP/1\\.1 ([0-9]{3} [A-Za-z ]+)\r\n")
        let text = output as NSString
        return pattern.matches(in: output, range: NSRange(location: 0, length: text.length)).map { text.substring(with: $0.range(at: 1)) }
    }

    func send(_ text: String, to channel: EmbeddedChannel) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    @Test func pipelinedRequestsAreAnsweredInOrderOnOneConnection() async throws {
        let channel = try await replayChannel([Self.recording("/a", body: "first"), Self.recording("/b", body: "second")])
        try send("GET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n", to: channel)
        let output = try written(channel)
        let bodies = output.components(separatedBy: "\r\n\r\n").dropFirst().map { $0.prefix { $0 != "H" } }
        #expect(bodies == ["second", "first", "second"])
        #expect(Self.statuses(output) == ["200 OK", "200 OK", "200 OK"])
        #expect(channel.isActive)
        _ = try? channel.finish()
    }

    @Test func aParseErrorAfterPipelinedRequestsComesAfterEveryEarlierAnswerThenTheConnectionCloses() async throws {
        let channel = try await replayChannel([Self.recording("/a", body: "first")])
        try? send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE \u{01}\r\n\r\n", to: channel)
        // The pipelining handler hands on the held-back request and error from the event loop.
        channel.embeddedEventLoop.run()
        let output = try written(channel)
        #expect(Self.statuses(output) == ["200 OK", "200 OK", "400 Bad Request"])
        #expect(output.contains("\"error\":\"bad_request\""))
        #expect(output.hasSuffix("send a well-formed request on a new one\"}\n"))
        #expect(!channel.isActive)
    }

    @Test func aHEADAnswerCarriesTheLengthButNoBody() async throws {
        let channel = try await replayChannel([Self.recording("/a", body: "twelve bytes")])
        try send("HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n", to: channel)
        let output = try written(channel)
        #expect(output.hasPrefix("HTTP/1.1 "))
        #expect(output.hasSuffix("\r\n\r\n"))
        #expect(!output.contains("twelve bytes"))
        _ = try? channel.finish()
    }

    /// A recording stored as a stream, recorded with `Content-Length` or without (chunked).
    static func streamed(_ target: String, body: String, recordedLength: Bool) -> Interaction {
        var recording = recording(target, body: body)
        if recordedLength { recording.responseHeaders[.contentLength] = String(body.utf8.count) }
        recording.chunks = [ResponseChunk(offset: .zero, size: 4), ResponseChunk(offset: .milliseconds(5), size: body.utf8.count - 4)]
        return recording
    }

    @Test(arguments: [true, false])
    func aStreamedRecordingIsReplayedWithTheFramingItWasRecordedWith(recordedLength: Bool) async throws {
        let channel = try await replayChannel([Self.streamed("/s", body: "streamed body", recordedLength: recordedLength)])
        try send("GET /s HTTP/1.1\r\nHost: x\r\n\r\n", to: channel)
        let output = try written(channel).lowercased()
        #expect(output.hasPrefix("http/1.1 200 ok\r\n"))
        #expect(output.contains("content-length: 13\r\n") == recordedLength, "\(output)")
        #expect(output.contains("transfer-encoding: chunked\r\n") == !recordedLength, "\(output)")
        #expect(output.hasSuffix(recordedLength ? "\r\n\r\nstreamed body" : "\r\n0\r\n\r\n"), "\(output)")
        _ = try? channel.finish()
    }

    @Test func aStreamedRecordingWithoutALengthGoesToAnHTTP10ClientUnderTheWholeLength() async throws {
        let channel = try await replayChannel([Self.streamed("/s", body: "streamed body", recordedLength: false)])
        try send("GET /s HTTP/1.0\r\nHost: x\r\n\r\n", to: channel)
        let output = try written(channel).lowercased()
        #expect(output.contains("content-length: 13\r\n"), "\(output)")
        #expect(!output.contains("transfer-encoding"))
        #expect(output.hasSuffix("\r\n\r\nstreamed body"), "\(output)")
        _ = try? channel.finish()
    }

    @Test func aClientExpectingContinueGetsItBeforeSendingItsBody() async throws {
        let channel = try await replayChannel([])
        try send("PUT /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n", to: channel)
        #expect(try written(channel) == "HTTP/1.1 100 Continue\r\n\r\n")
        try send("hello", to: channel)
        let answer = try written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        #expect(answer.contains("No recording of PUT /upload"))
        _ = try? channel.finish()
    }

    @Test func aWebSocketHandshakeWithNoRecordedConversationIsAnsweredOverHTTPAndTheConnectionCloses() async throws {
        let channel = try await replayChannel([Self.recording("/a", body: "first")])
        try send(
            "GET /socket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
            to: channel)
        let output = try written(channel)
        #expect(output.hasPrefix("HTTP/1.1 404 Not Found\r\n"), "\(output)")
        #expect(output.contains("No recording of GET /socket"), "\(output)")
        #expect(output.lowercased().contains("connection: close"))
    }

    @Test func aBodyOverTheLimitGets413AndTheConnectionCloses() async throws {
        let channel = try await replayChannel([], maxBodySize: 4)
        try send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789", to: channel)
        let output = try written(channel)
        #expect(output.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"))
        #expect(output.contains("\"error\":\"payload_too_large\""))
        #expect(!channel.isActive)
    }
}
