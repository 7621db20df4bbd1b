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
        if conversation.grpc != nil { return appendGRPC(conversation, to: &lines) }
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

    /// A gRPC call: its metadata, messages as protobuf JSON (`protoSchema`: the store's
    /// descriptors), response headers and trailers; offsets only with `includesTimestamps`.
    private func appendGRPC(_ call: Conversation, to lines: inout [String]) {
        let text = GRPCCallText(schema: protoSchema)
        lines.append("=== \(call.cassette) \(call.key) #\(call.sequence) \(text.title(call))")
        for field in call.requestHeaders { lines.append("request metadata \(field.name.rawName): \(field.value)") }
        if let headers = call.grpc?.responseHeaders {
            for field in headers { lines.append("response header \(field.name.rawName): \(field.value)") }
        } else {
            lines.append("trailers only")
        }
        for (index, message) in call.messages.enumerated() {
            let offset = includesTimestamps ? String(format: " at %.1f ms", message.offsetMilliseconds) : ""
            lines.append("message \(index) \(message.direction == .client ? "->" : "<-")\(offset) \(text.message(message, path: GRPCCallText.path(of: call)))")
        }
        for field in call.grpc?.trailers ?? [:] { lines.append("trailer \(field.name.rawName): \(field.value)") }
        lines.append("ended \(GRPCCallText.status(of: call))")
        if includesTimestamps { lines.append("recorded \(Self.timestamp(call.recordedAt))") }
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
