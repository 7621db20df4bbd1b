import Foundation
import WellPlateCore

/// WebSocket conversations in the dump: the handshake, then one line per message (direction,
/// kind, size, a preview), then how it ended. Offsets and the handshake's `Sec-WebSocket-Key`
/// differ on every re-recording of the same conversation, so, like recording times and the
/// `Date` header, they are printed only with `includesTimestamps`.
extension CassetteDump {
    func appendConversations(_ conversations: [Conversation], to lines: inout [String]) {
        guard !conversations.isEmpty else { return }
        lines.append("  \(conversations.count) WebSocket conversation\(conversations.count == 1 ? "" : "s")")
        lines.append("")
        for conversation in conversations.sorted(by: { ($0.key, $0.sequence) < ($1.key, $1.sequence) }) {
            append(conversation, to: &lines)
            lines.append("")
        }
    }

    private func append(_ conversation: Conversation, to lines: inout [String]) {
        lines.append("=== \(conversation.cassette) \(conversation.key) #\(conversation.sequence) WebSocket")
        lines.append("handshake GET \(conversation.url)")
        for field in conversation.requestHeaders where includesTimestamps || field.name.canonicalName != "sec-websocket-key" {
            lines.append("handshake header \(field.name.rawName): \(field.value)")
        }
        if let subprotocol = conversation.subprotocol { lines.append("subprotocol \(subprotocol)") }
        if let extensions = conversation.extensions { lines.append("extensions \(extensions)") }
        for (index, message) in conversation.messages.enumerated() {
            lines.append("message \(index) " + Self.line(message, includesOffset: includesTimestamps))
        }
        lines.append("ended \(conversation.end.summary)")
        if includesTimestamps {
            lines.append("recorded \(Self.timestamp(conversation.recordedAt))")
        }
    }

    /// `-> text 38 bytes: {"type": "auth"}`: `->` client to server, `<-` server to client, as
    /// `cassette show` prints them; a message sent in several frames names their sizes.
    static func line(_ message: ConversationMessage, includesOffset: Bool) -> String {
        var line = message.direction == .client ? "->" : "<-"
        if includesOffset { line += String(format: " at %.1f ms", message.offsetMilliseconds) }
        line += " \(message.kind.rawValue) \(message.payload.count) byte\(message.payload.count == 1 ? "" : "s")"
        if message.fragments.count > 1 { line += " in fragments " + message.fragments.map(String.init).joined(separator: "+") }
        let preview = message.kind == .binary ? message.preview(limit: 60) : message.preview(limit: 200)
        return preview.isEmpty ? line : line + ": " + preview
    }
}
