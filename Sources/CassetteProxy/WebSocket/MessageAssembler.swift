import Foundation
import NIOCore
import NIOWebSocket
import WellPlateCore

/// Joins the frames one side sends into messages, keeping each fragment's size: control frames
/// stand alone, a text or binary message ends with its `fin` frame. Refuses a message larger than
/// the limit (`--ws-max-message`) before it is held whole.
struct MessageAssembler {
    enum Result: Equatable {
        /// A frame in the middle of a message.
        case partial
        case message(ConversationMessage.Kind, Data, fragments: [Int])
        /// The message outgrew the limit: close with 1009.
        case tooLarge
        /// A continuation with no message begun, or a new message inside one: close with 1002.
        case outOfOrder
    }

    let maxMessageSize: Int
    private var kind: ConversationMessage.Kind?
    private var payload = Data()
    private var fragments: [Int] = []

    init(maxMessageSize: Int) {
        self.maxMessageSize = maxMessageSize
    }

    mutating func add(_ frame: WebSocketFrame) -> Result {
        let data = frame.unmaskedData
        switch frame.opcode {
        case .ping: return .message(.ping, Data(data.readableBytesView), fragments: [data.readableBytes])
        case .pong: return .message(.pong, Data(data.readableBytesView), fragments: [data.readableBytes])
        case .connectionClose: return .message(.close, Data(data.readableBytesView), fragments: [data.readableBytes])
        case .text, .binary:
            guard kind == nil else { return .outOfOrder }
            kind = frame.opcode == .text ? .text : .binary
        case .continuation:
            guard kind != nil else { return .outOfOrder }
        default:
            return .outOfOrder
        }
        guard payload.count + data.readableBytes <= maxMessageSize else {
            kind = nil
            payload = Data()
            fragments = []
            return .tooLarge
        }
        payload.append(contentsOf: data.readableBytesView)
        fragments.append(data.readableBytes)
        guard frame.fin, let finished = kind else { return .partial }
        defer {
            kind = nil
            payload = Data()
            fragments = []
        }
        return .message(finished, payload, fragments: fragments)
    }
}

extension NIOWebSocketError {
    /// The close code a frame the decoder refused gets: 1009 for one over the size limit, 1002 else.
    var closeCode: Int { self == .invalidFrameLength ? 1009 : 1002 }
}

extension WebSocketFrame {
    /// A close frame with `code` (none: `nil`) and `reason`, masked when a client sends it.
    static func close(code: Int?, reason: String, allocator: ByteBufferAllocator, masked: Bool = false) -> WebSocketFrame {
        var data = allocator.buffer(capacity: 2 + reason.utf8.count)
        if let code {
            data.writeInteger(UInt16(truncatingIfNeeded: code))
            data.writeString(reason)
        }
        return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: masked ? .random() : nil, data: data)
    }
}
