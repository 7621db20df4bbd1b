import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Synchronization
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket

/// The connection's handlers in record mode, over an `NIOAsyncTestingChannel` (the forwarded
/// request's task runs on the channel's loop): an in-process upstream, a store made here.
@Suite("Proxy connection recording over a testing channel")
final class HTTPConnectionHandlerRecordingTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "embedded-record")
    }

    /// A channel whose pipeline records what `upstream` answers into a fresh store, as
    /// `cassette record --mode missing` would.
    func recordingChannel(upstream: any HTTPTransport) async throws -> (NIOAsyncTestingChannel, CassetteStore) {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        var settings = ProxySettings()
        settings.logRequests = false
        settings.upstream = URL(string: "http://upstream.test")
        settings.port = 0
        let served = try await ServedCassette.open(
            "dev", policy: ServingPolicy(mode: .missing), role: .proxy(sessionsOnly: false),
            context: .testing(store: store, settings: settings, upstream: upstream))
        let pipeline = served.reversePipelines()[0]
        let channel = NIOAsyncTestingChannel()
        let loop = channel.testingEventLoop
        try await loop.executeInContext {
            try pipeline.configure(channel.pipeline.syncOperations, loop: ConnectionLoop(logShard: 0, storage: LoopStorage(on: loop)))
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        return (channel, store)
    }

    /// What the handlers wrote until `done` holds for it (or `Patience.request` passes).
    func written(_ channel: NIOAsyncTestingChannel, until done: (String) -> Bool) async throws -> String {
        var text = ""
        let deadline = ContinuousClock.now + Patience.request
        while ContinuousClock.now < deadline {
            // Work the loop queued for itself (the forwarded request's task, the answer's write)
            // runs when the test runs the loop.
            await channel.testingEventLoop.run()
            while let buffer = try await channel.readOutbound(as: ByteBuffer.self) {
                text += String(buffer: buffer)
            }
            if done(text) { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        // Whatever was written just before `done` became true (say, before the close).
        while let buffer = try await channel.readOutbound(as: ByteBuffer.self) {
            text += String(buffer: buffer)
        }
        return text
    }

    /// Whether the last answer in `text` has all the body its `Content-Length` announces.
    static func lastAnswerIsWhole(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let status = text.range(of: "HTTP/1.1 ", options: .backwards),
            let headEnd = text.range(of: "\r\n\r\n", range: status.upperBound..<text.endIndex),
            let lengthLine = text.range(of: "Content-Length: ", range: status.upperBound..<headEnd.lowerBound)
        else { return false }
        let length = Int(text[lengthLine.upperBound...].prefix { $0.isNumber }) ?? -1
        return bytes.count - text.utf8.distance(from: text.startIndex, to: headEnd.upperBound) == length
    }

    @Test func pipelinedRequestsAreRecordedAndAnsweredInOrderThenAParseErrorGets400AndTheClose() async throws {
        let upstream = FixedUpstream(response: TransportResponse(statusCode: 200, headerFields: [.contentType: "text/plain"], body: Data("hello".utf8)))
        let (channel, store) = try await recordingChannel(upstream: upstream)
        _ = try? await channel.writeInbound(
            ByteBuffer(string: "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE \u{01}\r\n\r\n"))
        let output = try await written(channel) { _ in !channel.isActive }
        #expect(HTTPConnectionHandlerTests.statuses(output) == ["200 OK", "200 OK", "400 Bad Request"])
        #expect(output.components(separatedBy: "X-Cassette: recorded").count == 3)
        #expect(output.contains("\"error\":\"bad_request\""))
        try await channel.closeFuture.get()
        // Recordings are committed before their answer goes out.
        let recorded = try await store.interactions(cassette: "dev").map(\.key).sorted()
        #expect(recorded == ["GET /a", "GET /b"])
        try await store.close()
    }

    @Test func aStreamTheUpstreamCutsOffReachesTheClientAsAnAbortAndIsNotRecorded() async throws {
        let (channel, store) = try await recordingChannel(upstream: BrokenStreamUpstream())
        try await channel.writeInbound(ByteBuffer(string: "GET /events HTTP/1.1\r\nHost: x\r\n\r\n"))
        let output = try await written(channel) { _ in !channel.isActive }
        #expect(HTTPConnectionHandlerTests.statuses(output) == ["200 OK"])
        #expect(output.contains("data: one"))
        // The connection closes without the chunked body's last chunk: the client sees the abort.
        #expect(!output.hasSuffix("0\r\n\r\n"))
        #expect(!channel.isActive)
        #expect(try await store.interactions(cassette: "dev").isEmpty)
        try await store.close()
    }

    @Test func anUpstreamFailureIsA502AndNothingIsRecorded() async throws {
        let (channel, store) = try await recordingChannel(upstream: FailingUpstream())
        try await channel.writeInbound(ByteBuffer(string: "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"))
        let output = try await written(channel) { Self.lastAnswerIsWhole($0) }
        #expect(HTTPConnectionHandlerTests.statuses(output) == ["502 Bad Gateway"])
        #expect(output.contains("\"error\":\"upstream_unreachable\""))
        #expect(channel.isActive)
        #expect(try await store.interactions(cassette: "dev").isEmpty)
        _ = try? await channel.finish()
        try await store.close()
    }
}

/// An upstream that sends the head and one event of a Server-Sent Events stream, then breaks off.
private struct BrokenStreamUpstream: StreamingHTTPTransport {
    private final class Events: TransportBodySource {
        let sent = Atomic(false)

        func next() async throws -> Data? {
            if sent.exchange(true, ordering: .relaxed) { throw TransportError(.connectionLost, "the upstream closed the connection mid-body") }
            return Data("data: one\n\n".utf8)
        }

        func abandon() {}
    }

    func stream(_ request: TransportRequest) async throws -> StreamedResponse {
        StreamedResponse(
            head: TransportResponseHead(statusCode: 200, headerFields: [.contentType: "text/event-stream"]), body: TransportBodyStream(source: Events()))
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await stream(request).collected()
    }
}

/// An upstream that cannot be reached.
private struct FailingUpstream: HTTPTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        throw TransportError(.cannotConnect, "connection refused")
    }
}
