import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTP2
import Testing

@testable import CassetteKernel

/// A stream's writer of prepared replies: HEADERS made once per prepared head and one DATA frame
/// that ends the stream; everything else the stream writes passes it unchanged.
@Suite("HTTP/2 reply outlet over an embedded channel")
struct HTTP2ReplyOutletTests {
    static let head = PreparedHead(statusCode: 201, headers: HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", "5"), ("X-Cassette", "hit")]))

    private func channel() throws -> (EmbeddedChannel, HTTP2ReplyOutlet) {
        let outlet = HTTP2ReplyOutlet()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(outlet)
        return (channel, outlet)
    }

    private func written(_ channel: EmbeddedChannel) throws -> [HTTP2Frame.FramePayload] {
        var payloads: [HTTP2Frame.FramePayload] = []
        while let payload = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) { payloads.append(payload) }
        return payloads
    }

    @Test func aReplyWithABodyIsHeadersThenOneDataFrameThatEndsTheStream() throws {
        let (channel, outlet) = try channel()
        #expect(outlet.write(Self.head, body: ByteBuffer(string: "hello")))
        let payloads = try written(channel)
        #expect(payloads.count == 2)
        guard case .headers(let headers) = payloads.first, case .data(let data) = payloads.last, case .byteBuffer(let body) = data.data else {
            Issue.record("expected HEADERS then DATA, got \(payloads)")
            return
        }
        #expect(!headers.endStream && data.endStream)
        #expect(headers.headers.map(\.name) == [":status", "content-type", "content-length", "x-cassette"])
        #expect(headers.headers.first(name: ":status") == "201")
        #expect(String(buffer: body) == "hello")
        _ = try channel.finish()
    }

    @Test func aReplyWithoutABodyIsHeadersThatEndTheStream() throws {
        let (channel, outlet) = try channel()
        #expect(outlet.write(Self.head, body: nil))
        let payloads = try written(channel)
        guard payloads.count == 1, case .headers(let headers) = payloads[0] else {
            Issue.record("expected one HEADERS, got \(payloads)")
            return
        }
        #expect(headers.endStream)
        _ = try channel.finish()
    }

    @Test func otherWritesPassUnchangedAndARemovedOutletWritesNothing() throws {
        let (channel, outlet) = try channel()
        try channel.writeOutbound(HTTP2Frame.FramePayload.rstStream(.cancel))
        guard case .rstStream(.cancel) = try #require(try written(channel).first) else {
            Issue.record("the RST_STREAM did not pass")
            return
        }
        try channel.pipeline.syncOperations.removeHandler(outlet).wait()
        #expect(!outlet.write(Self.head, body: nil), "the caller writes the usual way")
        #expect(try written(channel).isEmpty)
        _ = try channel.finish()
    }
}
