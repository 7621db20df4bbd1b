import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteKernel
@testable import CassetteServing

/// The hook gRPC plugs into (`HTTP2StreamSwitches`): a module registered like any protocol
/// module owns the HTTP/2 streams whose content type it names, in both directions and with
/// trailers, while other streams on the same connection stay ordinary requests; over HTTP/1.1
/// its requests are refused with 505. The module here echoes what it is sent.
@Suite("HTTP/2 stream switches")
final class HTTP2StreamSwitchTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "streams")
    }

    /// Echoes each request part as it comes: the body back in pieces, the client's `x-in`
    /// trailer back in the response's trailers.
    final class Echo: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch Self.unwrapInboundIn(data) {
            case .head:
                let head = HTTPResponseHead(version: .http2, status: .ok, headers: ["content-type": "application/x-echo"])
                context.writeAndFlush(Self.wrapOutboundOut(.head(head)), promise: nil)
            case .body(let chunk):
                context.writeAndFlush(Self.wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
            case .end(let trailers):
                let echoed = HTTPHeaders([("x-echo-status", "0"), ("x-echoed", trailers?.first(name: "x-in") ?? "none")])
                context.writeAndFlush(Self.wrapOutboundOut(.end(echoed)), promise: nil)
            }
        }
    }

    struct EchoModule: ServingProtocol {
        func offerStreams(on listener: ServingListener) -> HTTP2StreamSwitches.Switch? {
            .contentType("application/x-echo", name: "echo") { pipeline, _ in
                try pipeline.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                try pipeline.addHandler(Echo())
            }
        }
    }

    /// A replaying listener with `GET /plain` recorded and the echo module registered, around `body`.
    func withListener(_ body: (Int) async throws -> Void) async throws {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        try await store.record(batch: [
            Interaction(
                cassette: "dev", method: .get, url: "http://127.0.0.1:1/plain", key: "GET /plain", statusCode: 200,
                responseHeaders: [.contentType: "text/plain"], responseBody: Data("recorded".utf8))
        ])
        var settings = ProxySettings()
        settings.logRequests = false
        settings.port = 0
        var context = ServedCassette.Context.testing(store: store, settings: settings)
        context.protocols.append(EchoModule())
        let served = try await ServedCassette.open("dev", policy: ServingPolicy(mode: .replayOnly), role: .proxy(sessionsOnly: false), context: context)
        let server = try await ProxyServer.start(pipeline: served.reversePipelines()[0], host: "127.0.0.1", port: 0, threads: 1)
        do {
            try await body(server.port)
            await server.shutdown()
        } catch {
            await server.shutdown()
            throw error
        }
    }

    @Test func aStreamWithTheModulesContentTypeIsOwnedByItBothWaysWithTrailers() async throws {
        try await withListener { port in
            let connection = try await RawConnection.connect(port: port)
            // POST / with content-type application/x-echo (HPACK: static `:method POST`,
            // `:scheme http`, `:path /`, literal `:authority x`, literal content-type).
            let contentType = Array("application/x-echo".utf8)
            let block: [UInt8] = [0x83, 0x86, 0x84, 0x01, 0x01, 0x78, 0x0F, 0x10, UInt8(contentType.count)] + contentType
            let trailers: [UInt8] = [0x00, 0x04] + Array("x-in".utf8) + [0x03] + Array("abc".utf8)
            // A GET /plain on stream 3 of the same connection stays an ordinary request.
            try await connection.send(
                HTTP2Frames.preface + HTTP2Frames.frame(.settings)
                    + HTTP2Frames.frame(.headers, flags: 0x04, stream: 1, payload: block)
                    + HTTP2Frames.frame(.data, stream: 1, payload: Array("hello ".utf8))
                    + HTTP2Frames.frame(.data, stream: 1, payload: Array("stream".utf8))
                    + HTTP2Frames.frame(.headers, flags: 0x05, stream: 1, payload: trailers)
                    + HTTP2Frames.request(stream: 3, block: [0x82, 0x86, 0x04, 0x06] + Array("/plain".utf8) + [0x01, 0x01, 0x78]))
            var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
            var headers: [UInt32: [HPACKHeaders]] = [:]
            var bodies: [UInt32: String] = [:]
            var ended: Set<UInt32> = []
            let received = try await connection.receive { bytes in
                let frames = HTTP2Frames.payloads(in: bytes)
                return frames.filter { $0.kind <= 1 && $0.flags & 0x01 != 0 && $0.stream != 0 }.count >= 2
            }
            for frame in HTTP2Frames.payloads(in: received) where frame.stream != 0 {
                if frame.kind == HTTP2Frames.Kind.headers.rawValue {
                    var buffer = ByteBuffer(bytes: frame.payload)
                    headers[frame.stream, default: []].append(try decoder.decodeHeaders(from: &buffer))
                } else if frame.kind == HTTP2Frames.Kind.data.rawValue {
                    bodies[frame.stream, default: ""] += String(decoding: frame.payload, as: UTF8.self)
                }
                if frame.flags & 0x01 != 0 { ended.insert(frame.stream) }
            }
            #expect(ended == [1, 3])
            let echo = try #require(headers[1])
            #expect(echo.count == 2, "\(echo)")
            #expect(echo.first?.first(name: ":status") == "200")
            #expect(bodies[1] == "hello stream")
            #expect(echo.last?.first(name: "x-echo-status") == "0")
            #expect(echo.last?.first(name: "x-echoed") == "abc")
            // The ordinary stream was answered from the recording.
            #expect(headers[3]?.first?.first(name: "x-cassette") == "hit", "\(headers[3] ?? [])")
            #expect(bodies[3] == "recorded")
        }
    }

    @Test func overHTTP1TheModulesRequestsAreRefusedAndCurlOverHTTP2IsAnswered() async throws {
        try await withListener { port in
            let overHTTP1 = try await ExternalTool.run(
                ["curl", "-sS", "-i", "--http1.1", "-H", "Content-Type: application/x-echo", "--data", "hi", "http://127.0.0.1:\(port)/"],
                cwd: directory.url)
            #expect(overHTTP1.stdout.hasPrefix("HTTP/1.1 505"), "\(overHTTP1.stdout)")
            #expect(overHTTP1.stdout.contains("echo needs HTTP/2"), "\(overHTTP1.stdout)")
            let overHTTP2 = try await ExternalTool.run(
                ["curl", "-sS", "--http2-prior-knowledge", "-H", "Content-Type: application/x-echo", "--data", "hi there", "http://127.0.0.1:\(port)/"],
                cwd: directory.url)
            #expect(overHTTP2.status == 0, "\(overHTTP2.stderr)")
            #expect(overHTTP2.stdout == "hi there")
            // `application/x-echo-web` is another type: an ordinary request (a miss here).
            let other = try await ExternalTool.run(
                [
                    "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--http1.1", "-H", "Content-Type: application/x-echo-web", "--data", "x",
                    "http://127.0.0.1:\(port)/",
                ],
                cwd: directory.url)
            #expect(other.stdout == "404", "\(other.stdout)")
        }
    }

    @Test(arguments: [
        ("application/grpc", true), ("application/grpc+proto", true), ("Application/GRPC; charset=utf-8", true), ("application/grpc-web", false),
        ("application/grpc-web+proto", false), ("text/plain", false),
    ])
    func contentTypeVariants(value: String, taken: Bool) {
        #expect(HTTP2StreamSwitches.Switch.isVariant(value, of: "application/grpc") == taken)
    }
}
