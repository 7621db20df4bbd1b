import HTTPTypes
import NIOCore
import NIOHTTP1
import WellPlateCore

/// Request header values that are not UTF-8 (latin-1 bytes, legal in HTTP/1.1), kept byte for
/// byte on their way upstream. NIO's decoder turns such bytes into U+FFFD, so this handler, in
/// front of it, sends each invalid byte of a request head as the private-use scalar that
/// `RawHeaderBytes` uses for response heads (U+F780–U+F7FF); `RawHeaderBytes.field(name:value:)`
/// turns them back into bytes where the proxy builds header fields.
///
/// Only heads are touched, never bodies: the decoder parses synchronously what it is handed, so
/// the bytes before an invalid one are handed over first, and `Observer`, right behind the
/// decoder, tells whether the decoder is now inside a message's body and how much of it is left.
/// A body of known length is handed over as it is, and the head after it in the same read
/// (pipelining) is escaped again; the rest of a read that continues a chunked body is handed over
/// unchanged (a latin-1 head pipelined after it in the same read arrives as NIO decodes it).
package final class RequestHeadBytesHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    /// Set between a request's head and its end, by `Observer`.
    fileprivate var inBody = false
    /// What is left of the current body when its length is known (`Content-Length`).
    fileprivate var bodyBytesLeft: Int?

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = Self.unwrapInboundIn(data)
        // Nearly every read: all ASCII, handed over as it is.
        guard buffer.readableBytesView.contains(where: { $0 >= 0x80 }) else {
            context.fireChannelRead(data)
            return
        }
        while buffer.readableBytes > 0 {
            if inBody {
                // The body, as it is; then the next head, if this read holds one.
                guard let left = bodyBytesLeft, left > 0, left < buffer.readableBytes, let body = buffer.readSlice(length: left) else { break }
                context.fireChannelRead(Self.wrapInboundOut(body))
                guard !inBody else { break }
                continue
            }
            guard let offset = Self.firstInvalidByte(buffer.readableBytesView) else { break }
            if offset > 0, let before = buffer.readSlice(length: offset) {
                context.fireChannelRead(Self.wrapInboundOut(before))
                if inBody { continue }
            }
            guard let byte = buffer.readInteger(as: UInt8.self) else { break }
            let scalar = 0xF700 + UInt32(byte)
            var escaped = context.channel.allocator.buffer(capacity: 3)
            escaped.writeBytes([0xEF, UInt8(0x80 | ((scalar >> 6) & 0x3F)), UInt8(0x80 | (scalar & 0x3F))])
            context.fireChannelRead(Self.wrapInboundOut(escaped))
        }
        if buffer.readableBytes > 0 {
            context.fireChannelRead(Self.wrapInboundOut(buffer))
        }
    }

    /// The offset of the first byte that does not start a valid UTF-8 sequence; a sequence cut
    /// off by the end of the read counts as valid (the decoder gets it as it is).
    package static func firstInvalidByte(_ bytes: ByteBufferView) -> Int? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let (length, secondRange): (Int, ClosedRange<UInt8>) =
                switch lead {
                case 0xC2...0xDF: (2, 0x80...0xBF)
                case 0xE0: (3, 0xA0...0xBF)
                case 0xED: (3, 0x80...0x9F)
                case 0xE1...0xEF: (3, 0x80...0xBF)
                case 0xF0: (4, 0x90...0xBF)
                case 0xF1...0xF3: (4, 0x80...0xBF)
                case 0xF4: (4, 0x80...0x8F)
                default: (0, 0...0)
                }
            guard length > 0 else { return index - bytes.startIndex }
            var valid = true
            for position in 1..<length where index + position < bytes.endIndex {
                let byte = bytes[index + position]
                if !(position == 1 ? secondRange : 0x80...0xBF).contains(byte) {
                    valid = false
                    break
                }
            }
            guard valid else { return index - bytes.startIndex }
            index += length
        }
        return nil
    }

    /// Behind the decoder: marks where each request's body begins and ends.
    package final class Observer: ChannelInboundHandler, RemovableChannelHandler {
        package typealias InboundIn = HTTPServerRequestPart
        package typealias InboundOut = HTTPServerRequestPart

        private let escaper: RequestHeadBytesHandler

        package init(_ escaper: RequestHeadBytesHandler) {
            self.escaper = escaper
        }

        package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch Self.unwrapInboundIn(data) {
            case .head(let head):
                escaper.inBody = true
                escaper.bodyBytesLeft =
                    head.headers.contains(name: "transfer-encoding") ? nil : head.headers.first(name: "content-length").flatMap(Int.init) ?? 0
            case .body(let chunk):
                escaper.bodyBytesLeft = escaper.bodyBytesLeft.map { $0 - chunk.readableBytes }
            case .end:
                escaper.inBody = false
                escaper.bodyBytesLeft = nil
            }
            context.fireChannelRead(data)
        }
    }
}

@available(*, unavailable)
extension RequestHeadBytesHandler: Sendable {}

@available(*, unavailable)
extension RequestHeadBytesHandler.Observer: Sendable {}

extension RawHeaderBytes {
    /// A header field from a value `RequestHeadBytesHandler` may have escaped: its bytes as the
    /// client sent them.
    package static func field(name: HTTPField.Name, value: String) -> HTTPField {
        guard RawHeaderBytes.isEscaped(value) else {
            return HTTPField(name: name, value: value)
        }
        var bytes: [UInt8] = []
        for scalar in value.unicodeScalars {
            if (0xF780...0xF7FF).contains(scalar.value) {
                bytes.append(UInt8(scalar.value - 0xF700))
            } else {
                bytes += String(scalar).utf8
            }
        }
        return HTTPField(name: name, value: bytes)
    }
}
