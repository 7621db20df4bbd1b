import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import CassetteKernel

/// `RawHeaderBytesHandler` next to the socket, in front of NIO's response encoder: a header value
/// that is not UTF-8 travels through `HTTPHeaders` escaped (`RawHeaderBytes.value(of:)`) and
/// reaches the wire as the bytes the upstream sent; everything else goes out as it was written.
@Suite("Raw header bytes on the wire")
struct RawHeaderBytesHandlerTests {
    static let latin1: [UInt8] = Array("caf".utf8) + [0xE9]

    func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(RawHeaderBytesHandler())
        try channel.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
        return channel
    }

    func head(_ fields: HTTPField...) -> HTTPServerResponsePart {
        var headers = HTTPHeaders()
        for field in fields { headers.add(name: field.name.rawName, value: RawHeaderBytes.value(of: field)) }
        headers.add(name: "Content-Length", value: "0")
        return .head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))
    }

    static func field(_ name: String, _ bytes: [UInt8]) -> HTTPField {
        HTTPField(name: HTTPField.Name(name)!, value: bytes)
    }

    @Test func aLatin1ValueReachesTheWireByteForByte() throws {
        let channel = try channel()
        try channel.writeOutbound(head(Self.field("X-Name", Self.latin1)))
        let written = try channel.writtenBytes()
        #expect(written == Array("HTTP/1.1 200 OK\r\nX-Name: ".utf8) + Self.latin1 + Array("\r\nContent-Length: 0\r\n\r\n".utf8))
    }

    @Test func everyByteFrom0x80To0xFFIsRestored() throws {
        let channel = try channel()
        let bytes = (0x80...0xFF).map { UInt8($0) }
        try channel.writeOutbound(head(Self.field("X-Bytes", bytes)))
        let written = try channel.writtenBytes()
        #expect(written.starts(with: Array("HTTP/1.1 200 OK\r\nX-Bytes: ".utf8) + bytes + Array("\r\n".utf8)))
    }

    @Test func aUTF8ValueGoesOutAsItsUTF8() throws {
        let channel = try channel()
        let utf8 = Array("café ☕".utf8)
        try channel.writeOutbound(head(Self.field("X-Name", utf8)))
        #expect(try channel.writtenBytes() == Array("HTTP/1.1 200 OK\r\nX-Name: ".utf8) + utf8 + Array("\r\nContent-Length: 0\r\n\r\n".utf8))
    }

    @Test func aBodyIsNeverTouchedEvenWhenItHoldsTheEscapesBytes() throws {
        let channel = try channel()
        try channel.writeOutbound(head())
        _ = try channel.writtenBytes()
        // U+F7E9 in UTF-8: what an escaped 0xE9 looks like in a head.
        let body = ByteBuffer(bytes: [0xEF, 0x9F, 0xA9] + Array(" HTTP/1.1".utf8))
        try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(body)))
        #expect(try channel.writtenBytes() == [0xEF, 0x9F, 0xA9] + Array(" HTTP/1.1".utf8))
    }

    @Test func aBufferWrittenPastTheEncoderIsRestoredOnlyWhenItIsAHead() throws {
        let channel = EmbeddedChannel(handler: RawHeaderBytesHandler())
        let escaped = Array(RawHeaderBytes.value(of: Self.field("X", [0xE9])).utf8)
        try channel.writeOutbound(ByteBuffer(bytes: Array("HTTP/1.0 200 OK\r\nX: ".utf8) + escaped + Array("\r\n\r\n".utf8)))
        #expect(try channel.writtenBytes() == Array("HTTP/1.0 200 OK\r\nX: ".utf8) + [0xE9] + Array("\r\n\r\n".utf8))
        try channel.writeOutbound(ByteBuffer(bytes: escaped))
        #expect(try channel.writtenBytes() == escaped)
    }

    @Test func theWritePromiseIsCompletedForARestoredHead() throws {
        let channel = try channel()
        let written = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(head(Self.field("X-Name", Self.latin1)), promise: written)
        channel.embeddedEventLoop.run()
        #expect(throws: Never.self) { try written.futureResult.wait() }
    }

    /// A valid UTF-8 value holding a character in U+F780–U+F7FF (private use, so rare) has the
    /// escapes' bytes: the handler cannot tell it from an escaped one and sends one byte instead.
    @Test func aUTF8ValueWithAPrivateUseCharacterOfTheEscapesRangeIsSentAsItIs() throws {
        let channel = try channel()
        let utf8 = Array("\u{F7E9}".utf8)
        try channel.writeOutbound(head(Self.field("X-Name", utf8)))
        let written = try channel.writtenBytes()
        withKnownIssue("RawHeaderBytes.restored turns every EF 9E/9F xx in a head into one byte, a valid UTF-8 value's too") {
            #expect(written == Array("HTTP/1.1 200 OK\r\nX-Name: ".utf8) + utf8 + Array("\r\nContent-Length: 0\r\n\r\n".utf8))
        }
    }
}
