import HTTPTypes
import NIOCore
import WellPlateCore

/// Header values that are not UTF-8 (latin-1 bytes are legal in HTTP/1.1, RFC 9110 §5.5) sent
/// byte for byte. NIO's `HTTPHeaders` holds `String`s and writes them as UTF-8, so such a value
/// travels through it with each byte 0x80–0xFF mapped to a private-use scalar (U+F780–U+F7FF);
/// `RawHeaderBytesHandler`, next to the socket, turns those back into the single bytes in the
/// response head. Values that are valid UTF-8 (nearly all) are left alone.
package enum RawHeaderBytes {
    /// The value as `HTTPHeaders` should carry it.
    package static func value(of field: HTTPField) -> String {
        guard isRaw(field) else { return field.value }
        return field.withUnsafeBytesOfValue { bytes in
            var text = String.UnicodeScalarView()
            for byte in bytes {
                text.append(Unicode.Scalar(byte < 0x80 ? UInt32(byte) : 0xF700 + UInt32(byte))!)
            }
            return String(text)
        }
    }

    /// Whether the field's value is not UTF-8, so `value(of:)` escapes it.
    package static func isRaw(_ field: HTTPField) -> Bool {
        field.withUnsafeBytesOfValue { bytes in
            bytes.contains(where: { $0 >= 0x80 }) && String(validating: bytes, as: UTF8.self) == nil
        }
    }

    /// Whether `value` carries escaped bytes (from `value(of:)`).
    package static func isEscaped(_ value: String) -> Bool {
        value.utf8.contains(0xEF) && value.unicodeScalars.contains { (0xF780...0xF7FF).contains($0.value) }
    }

    /// The head with escaped bytes restored, or `nil` when it has none. In UTF-8 the escapes are
    /// `EF 9E 80`–`EF 9F BF`.
    package static func restored(_ head: ByteBuffer) -> ByteBuffer? {
        let view = head.readableBytesView
        guard view.starts(with: "HTTP/1.".utf8), view.contains(0xEF) else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(view.count)
        var index = view.startIndex
        var changed = false
        while index < view.endIndex {
            let byte = view[index]
            if byte == 0xEF, view.index(index, offsetBy: 2) < view.endIndex {
                let second = view[index + 1], third = view[index + 2]
                if (second == 0x9E || second == 0x9F) && (0x80...0xBF).contains(third) {
                    output.append((second == 0x9E ? 0x80 : 0xC0) + (third & 0x3F))
                    index += 3
                    changed = true
                    continue
                }
            }
            output.append(byte)
            index += 1
        }
        return changed ? ByteBuffer(bytes: output) : nil
    }
}

/// The first handler of a connection's pipeline: restores raw header bytes in response heads
/// (see `RawHeaderBytes`). NIO's encoder writes a head as one buffer of its own.
package final class RawHeaderBytesHandler: ChannelOutboundHandler, RemovableChannelHandler {
    package typealias OutboundIn = IOData
    package typealias OutboundOut = IOData

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .byteBuffer(let buffer) = Self.unwrapOutboundIn(data), let restored = RawHeaderBytes.restored(buffer) {
            context.write(Self.wrapOutboundOut(.byteBuffer(restored)), promise: promise)
        } else {
            context.write(data, promise: promise)
        }
    }
}

@available(*, unavailable)
extension RawHeaderBytesHandler: Sendable {}
