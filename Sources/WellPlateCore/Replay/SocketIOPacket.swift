import Foundation

/// A Socket.IO packet inside an Engine.IO v4 text message, as far as replay needs it: where its
/// acknowledgement id and its JSON sit. `42["add",1,2]` is an event, `421["add",1,2]` an event
/// that asks for an acknowledgement with id 1, `431[3]` the server's acknowledgement of it; with
/// a namespace, `42/chat,1[...]` and `43/chat,1[...]`. The id is a number the client chose (a
/// counter), not a JSON value, so it is found here rather than by a JSON path.
///
/// Only events and acknowledgements (packet types 2 and 3) are read: binary events and their
/// acknowledgements (5 and 6) carry placeholders for attachments sent in other frames.
package struct SocketIOPacket: Sendable, Equatable {
    /// The bytes before the id (`42`, `43/chat,`): the packet's kind and namespace.
    package let header: Range<Int>
    /// The acknowledgement id's digits; `nil` for an event that asks for none.
    package let ackID: Range<Int>?
    /// The JSON array of the event's name and arguments, or of the acknowledgement's values.
    package let json: Range<Int>

    /// The packet in `payload`; `nil` when it is not an event or acknowledgement with JSON after it.
    package init?(_ payload: Data) {
        let bytes = [UInt8](payload)
        let digit = UInt8(ascii: "0")...UInt8(ascii: "9")
        // "4" is Engine.IO's message packet; "2" and "3" Socket.IO's event and acknowledgement.
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "4"), bytes[1] == UInt8(ascii: "2") || bytes[1] == UInt8(ascii: "3") else { return nil }
        var position = 2
        if position < bytes.count, bytes[position] == UInt8(ascii: "/") {
            guard let comma = bytes[position...].firstIndex(of: UInt8(ascii: ",")) else { return nil }
            position = comma + 1
        }
        header = 0..<position
        let digits = position
        while position < bytes.count, digit.contains(bytes[position]) { position += 1 }
        ackID = position > digits ? digits..<position : nil
        guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else { return nil }
        json = position..<bytes.count
    }

    /// Whether `payload` (this packet) and `otherPayload` (`other`) are the same packet but for
    /// how their JSON is written: kind, namespace and acknowledgement id byte for byte (an echoed
    /// id is masked in both before they are compared).
    package func sameFrame(_ payload: Data, as other: SocketIOPacket, in otherPayload: Data) -> Bool {
        Self.slice(payload, 0..<json.lowerBound) == Self.slice(otherPayload, 0..<other.json.lowerBound)
    }

    /// The bytes of `payload` in `range` (counted from its first byte).
    package static func slice(_ payload: Data, _ range: Range<Int>) -> Data {
        payload[payload.startIndex + range.lowerBound..<payload.startIndex + range.upperBound]
    }
}
