import CassetteTools
import Foundation
import WellPlateCore

/// How `list` and `show` print WebSocket conversations.
enum ConversationReport {
    /// One row per conversation: id, cassette, key, sequence, messages each way, how it ended.
    static func table(_ conversations: [Conversation]) -> [String] {
        var table = TextTable([
            .init(title: "ID", alignment: .right), .init(title: "CASSETTE"), .init(title: "WEBSOCKET / gRPC", shrinks: true),
            .init(title: "SEQ", alignment: .right), .init(title: "SENT", alignment: .right), .init(title: "RECEIVED", alignment: .right),
            .init(title: "ENDED"), .init(title: "RECORDED AT"),
        ])
        for conversation in conversations {
            let data = conversation.messages.filter(\.isData)
            table.append([
                conversation.id.map(String.init) ?? "-", conversation.cassette,
                conversation.grpc != nil ? "gRPC " + GRPCCallText.path(of: conversation) : conversation.key, String(conversation.sequence),
                String(data.filter { $0.direction == .client }.count), String(data.filter { $0.direction == .server }.count),
                conversation.grpc != nil ? GRPCCallText.status(of: conversation) : conversation.end.summary, Formatting.timestamp(conversation.recordedAt),
            ])
        }
        let rendered = table.render(maxWidth: Terminal.outputWidth())
        return [Terminal.paint(rendered.header, .bold)] + rendered.lines
    }

    /// `3 recordings`, or `3 recordings and 1 WebSocket conversation` when conversations went too.
    static func count(_ removed: RemovedRecordings) -> String {
        count(recordings: removed.interactions, conversations: removed.conversations)
    }

    /// `3 recordings`, `3 recordings and 1 WebSocket conversation`, or `1 WebSocket conversation`
    /// when there are conversations and no recordings.
    static func count(recordings: Int, conversations: Int) -> String {
        let counted = Formatting.count(recordings, "recording")
        guard conversations > 0 else { return counted }
        let talks = Formatting.count(conversations, "WebSocket conversation")
        return recordings == 0 ? talks : "\(counted) and \(talks)"
    }

    /// A conversation whole: its handshake, then each message with its direction, offset and a preview.
    static func lines(_ conversation: Conversation) -> [String] {
        var lines = [
            Terminal.paint("WebSocket \(conversation.url)", .bold),
            "cassette \(conversation.cassette), sequence \(conversation.sequence), recorded \(Formatting.timestamp(conversation.recordedAt))",
        ]
        if let subprotocol = conversation.subprotocol { lines.append("subprotocol \(subprotocol)") }
        if let extensions = conversation.extensions { lines.append("extensions \(extensions)") }
        for field in conversation.requestHeaders { lines.append("  \(field.name.rawName): \(field.value)") }
        for message in conversation.messages {
            let arrow = message.direction == .client ? "->" : "<-"
            let offset = String(format: "%8.1f ms", message.offsetMilliseconds)
            let fragments = message.fragments.count > 1 ? " (\(message.fragments.count) fragments)" : ""
            lines.append(
                "\(offset) \(arrow) \(message.kind.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)) \(message.preview(limit: 100))\(fragments)")
        }
        lines.append("ended: \(conversation.end.summary)")
        return lines
    }
}
