import CassetteKernel
import CassetteServing
import Foundation
import NIOCore
import NIOWebSocket
import WellPlateCore

/// Joins the frames one side sends into messages, keeping each fragment's size: control frames
/// stand alone, a text or binary message ends with its `fin` frame. Refuses, with the close code
/// RFC 6455 gives, what the other side must never see: a frame masked the wrong way for its
/// sender, a reserved opcode or bit, frames out of order, a text message that is not UTF-8, a
/// malformed close, and a message larger than the limit (`--ws-max-message`) before it is held whole.
/// Under permessage-deflate (`inflater`), a message whose first frame sets RSV1 is inflated when
/// it is whole, and its payload is the inflated one.
package struct MessageAssembler {
    package enum Result: Equatable {
        /// A frame in the middle of a message.
        case partial
        case message(ConversationMessage.Kind, Data, fragments: [Int])
        /// Close the connection with the violation's code; the message goes nowhere.
        case refused(WebSocketViolation)
    }

    package let maxMessageSize: Int
    /// Who sends the frames: a client's must be masked, a server's must not (RFC 6455 §5.1).
    package let sender: ConversationSide
    /// Set when the connection agreed to permessage-deflate.
    private let inflater: MessageInflater?
    private var kind: ConversationMessage.Kind?
    private var compressed = false
    private var payload = Data()
    private var fragments: [Int] = []

    package init(maxMessageSize: Int, sender: ConversationSide, inflater: MessageInflater? = nil) {
        self.maxMessageSize = maxMessageSize
        self.sender = sender
        self.inflater = inflater
    }

    package mutating func add(_ frame: WebSocketFrame) -> Result {
        if let violation = Self.frameViolation(frame, sender: sender, deflate: inflater != nil) { return refuse(violation) }
        switch frame.opcode {
        case .ping: return .message(.ping, Self.payload(of: frame), fragments: [frame.data.readableBytes])
        case .pong: return .message(.pong, Self.payload(of: frame), fragments: [frame.data.readableBytes])
        case .connectionClose:
            let close = Self.payload(of: frame)
            guard Self.isValidClose(close) else { return refuse(.invalidClose) }
            return .message(.close, close, fragments: [close.count])
        case .text, .binary:
            guard kind == nil else { return refuse(.outOfOrder) }
            let opened: ConversationMessage.Kind = frame.opcode == .text ? .text : .binary
            if frame.fin && !frame.rsv1 {
                // A message in one uncompressed frame, the common case: nothing to join or keep between frames.
                let size = frame.data.readableBytes
                guard size <= maxMessageSize else { return .refused(.tooLarge) }
                let message = Self.payload(of: frame)
                if opened == .text && !Self.isUTF8(message) { return .refused(.invalidUTF8) }
                return .message(opened, message, fragments: [size])
            }
            kind = opened
            compressed = frame.rsv1
        case .continuation:
            guard kind != nil else { return refuse(.outOfOrder) }
            // RFC 7692 §6.1: only a message's first frame says it is compressed.
            guard !frame.rsv1 else { return refuse(.reservedBits) }
        default:
            return refuse(.reservedOpcode(UInt8(webSocketOpcode: frame.opcode)))
        }
        let data = frame.unmaskedData
        // Deflate can grow incompressible bytes a little: a compressed message is held up to an
        // eighth over the limit, and its inflated size is what is checked against it.
        let held = compressed && maxMessageSize < Int.max / 2 ? maxMessageSize + maxMessageSize / 8 + 64 : maxMessageSize
        guard payload.count + data.readableBytes <= held else { return refuse(.tooLarge) }
        payload.append(contentsOf: data.readableBytesView)
        fragments.append(data.readableBytes)
        guard frame.fin, let finished = kind else { return .partial }
        var message = payload
        let sizes = fragments
        let inflates = compressed
        reset()
        if inflates, let inflater {
            switch inflater.inflate(message, limit: maxMessageSize) {
            case .success(let inflated): message = inflated
            case .failure(let violation): return .refused(violation)
            }
        }
        if finished == .text && !Self.isUTF8(message) { return .refused(.invalidUTF8) }
        return .message(finished, message, fragments: sizes)
    }

    /// A frame's payload, unmasked, copied once: `WebSocketFrame.unmaskedData` would copy the
    /// masked buffer into a new one first (`callgrind`: an allocation per message).
    package static func payload(of frame: WebSocketFrame) -> Data {
        var bytes = frame.data.withUnsafeReadableBytes { Data($0) }
        guard let key = frame.maskKey, !bytes.isEmpty else { return bytes }
        // As `unmaskedData` does: the mask runs on from the extension data's bytes, if any.
        let offset = (frame.extensionData?.readableBytes ?? 0) % 4
        let mask = (key[0], key[1], key[2], key[3])
        bytes.withUnsafeMutableBytes { raw in
            withUnsafeBytes(of: mask) { mask in
                for index in raw.indices { raw[index] ^= mask[(index &+ offset) & 3] }
            }
        }
        return bytes
    }

    /// Whether `text` is UTF-8; ASCII, as most protocol messages are, is told without decoding.
    package static func isUTF8(_ text: Data) -> Bool {
        text.withUnsafeBytes { raw in raw.allSatisfy { $0 < 0x80 } } || String(validating: text, as: UTF8.self) != nil
    }

    private mutating func refuse(_ violation: WebSocketViolation) -> Result {
        reset()
        return .refused(violation)
    }

    private mutating func reset() {
        kind = nil
        compressed = false
        payload = Data()
        fragments = []
    }

    /// What is wrong with one frame on its own: its masking for `sender`, or a reserved bit set
    /// that no agreed extension defines (`deflate`: RSV1 on a text or binary frame, RFC 7692 §6).
    package static func frameViolation(_ frame: WebSocketFrame, sender: ConversationSide, deflate: Bool = false) -> WebSocketViolation? {
        switch (sender, frame.maskKey) {
        case (.client, nil): return .unmasked
        case (.server, .some): return .masked
        default: break
        }
        let compressible = deflate && (frame.opcode == .text || frame.opcode == .binary || frame.opcode == .continuation)
        if (frame.rsv1 && !compressible) || frame.rsv2 || frame.rsv3 { return .reservedBits }
        return nil
    }

    /// A close frame's body: empty, or a sendable code and a UTF-8 reason.
    package static func isValidClose(_ payload: Data) -> Bool {
        guard !payload.isEmpty else { return true }
        guard payload.count >= 2 else { return false }
        let code = Int(payload[payload.startIndex]) << 8 | Int(payload[payload.startIndex + 1])
        return WebSocketViolation.isSendableCloseCode(code) && String(validating: payload.dropFirst(2), as: UTF8.self) != nil
    }
}

extension NIOWebSocketError {
    /// What a frame the decoder refused gets: 1009 for one over the size limit, 1002 else.
    package var violation: WebSocketViolation {
        self == .invalidFrameLength ? .tooLarge : WebSocketViolation(code: 1002, reason: "protocol error")
    }
}

extension WebSocketFrame {
    /// A close frame with `code` (none: `nil`) and `reason`, masked when a client sends it.
    package static func close(code: Int?, reason: String, allocator: ByteBufferAllocator, masked: Bool = false) -> WebSocketFrame {
        var data = allocator.buffer(capacity: 2 + reason.utf8.count)
        if let code {
            data.writeInteger(UInt16(truncatingIfNeeded: code))
            data.writeString(reason)
        }
        return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: masked ? .random() : nil, data: data)
    }
}
