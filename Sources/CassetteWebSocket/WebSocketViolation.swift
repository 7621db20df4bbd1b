/// A frame or message RFC 6455 says to fail the connection for, with the close code and reason
/// the proxy sends back: the sender is told why, and the message is neither relayed nor stored.
package struct WebSocketViolation: Error, Equatable, Sendable {
    /// The close code: 1002 (protocol error), 1007 (text that is not UTF-8), 1009 (too large).
    package let code: Int
    /// Short enough for a close frame's 123 bytes.
    package let reason: String

    package static let tooLarge = WebSocketViolation(code: 1009, reason: "message larger than --ws-max-message")
    package static let outOfOrder = WebSocketViolation(code: 1002, reason: "continuation frame out of order")
    /// RFC 6455 §5.1: a server closes the connection on a client frame that is not masked.
    package static let unmasked = WebSocketViolation(code: 1002, reason: "client frames must be masked")
    /// RFC 6455 §5.1: a client closes the connection on a server frame that is masked.
    package static let masked = WebSocketViolation(code: 1002, reason: "server frames must not be masked")
    /// RFC 6455 §5.2: a reserved bit set with no extension negotiated that defines it.
    package static let reservedBits = WebSocketViolation(code: 1002, reason: "reserved bits set with no extension negotiated")
    /// RFC 7692 §6.2: a message marked compressed whose bytes zlib cannot inflate.
    package static let invalidCompressedData = WebSocketViolation(code: 1002, reason: "compressed message is not valid deflate data")
    /// RFC 6455 §8.1: a text message whose payload is not UTF-8.
    package static let invalidUTF8 = WebSocketViolation(code: 1007, reason: "text message is not valid UTF-8")
    /// RFC 6455 §5.5.1 and §7.4: a close frame with one byte, a code no endpoint may send, or a
    /// reason that is not UTF-8.
    package static let invalidClose = WebSocketViolation(code: 1002, reason: "invalid close frame")

    /// RFC 6455 §5.2: opcodes 0x3-0x7 and 0xB-0xF are reserved.
    package static func reservedOpcode(_ value: UInt8) -> WebSocketViolation {
        WebSocketViolation(code: 1002, reason: "reserved opcode 0x\(String(value, radix: 16, uppercase: true))")
    }

    /// Whether a close frame may carry `code` (RFC 6455 §7.4.1 and the IANA registry): 1004,
    /// 1005, 1006 and 1015 are never sent, 1016-2999 are unassigned.
    package static func isSendableCloseCode(_ code: Int) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
