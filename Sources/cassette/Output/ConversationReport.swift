import CassetteTools
import Foundation
import WellPlateCore

/// How `list` and `show` print WebSocket conversations.
enum ConversationReport {
    /// One row per conversation: id, cassette, key, sequence, messages each way, how it ended.
    static func table(_ conversations: [Conversation]) -> [String] {
        // Operations carried inside a conversation (GraphQL over WebSocket, JSON-RPC, Socket.IO acks) name it.
        let operations = conversations.map { operationsSummary(ConversationOperations($0)) }
        let showOperations = operations.contains { !$0.isEmpty }
        var columns: [TextTable.Column] = [.init(title: "ID", alignment: .right), .init(title: "CASSETTE"), .init(title: "WEBSOCKET / gRPC", shrinks: true)]
        if showOperations { columns.append(.init(title: "OPERATIONS", shrinks: true)) }
        columns += [
            .init(title: "SEQ", alignment: .right), .init(title: "SENT", alignment: .right), .init(title: "RECEIVED", alignment: .right),
            .init(title: "ENDED"), .init(title: "RECORDED AT"),
        ]
        var table = TextTable(columns)
        for (conversation, operations) in zip(conversations, operations) {
            let data = conversation.messages.filter(\.isData)
            var row = [
                conversation.id.map(String.init) ?? "-", conversation.cassette,
                conversation.grpc != nil ? "gRPC " + GRPCCallText.path(of: conversation) : conversation.key,
            ]
            if showOperations { row.append(operations.isEmpty ? "-" : operations) }
            row += [
                String(conversation.sequence), String(data.filter { $0.direction == .client }.count),
                String(data.filter { $0.direction == .server }.count),
                conversation.grpc != nil ? GRPCCallText.status(of: conversation) : conversation.end.summary, Formatting.timestamp(conversation.recordedAt),
            ]
            table.append(row)
        }
        let rendered = table.render(maxWidth: Terminal.outputWidth())
        return [Terminal.paint(rendered.header, .bold)] + rendered.lines
    }

    /// `subscription Countdown ×2, query Hello`: each operation's name once, with how often it ran.
    static func operationsSummary(_ operations: ConversationOperations) -> String {
        operations.labels.map { label in
            let count = operations.operations.count { $0.label == label }
            return count > 1 ? "\(label) ×\(count)" : label
        }.joined(separator: ", ")
    }

    /// The object `list --json` prints for a conversation.
    static func json(_ conversation: Conversation, now: Date) -> JSONValue {
        let data = conversation.messages.filter(\.isData)
        let operations = ConversationOperations(conversation).operations.map { operation -> JSONValue in
            [
                "operation": .string(operation.label), "variables": operation.variables ?? .null,
                "answers": .integer(Int64(operation.answers.count)),
            ]
        }
        return [
            "webSocket": true,
            "id": conversation.id.map { .integer($0) } ?? .null,
            "cassette": .string(conversation.cassette),
            "key": .string(conversation.key),
            "sequence": .integer(Int64(conversation.sequence)),
            "subprotocol": conversation.subprotocol.map(JSONValue.string) ?? .null,
            "sent": .integer(Int64(data.count { $0.direction == .client })),
            "received": .integer(Int64(data.count { $0.direction == .server })),
            "end": .string(conversation.end.summary),
            "recordedAt": .string(Formatting.timestamp(conversation.recordedAt)),
            "ageDays": .integer(Int64(max(0, Int(now.timeIntervalSince(conversation.recordedAt) / 86_400)))),
            "operations": .array(operations),
        ]
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
        let operations = ConversationOperations(conversation)
        if !operations.isEmpty {
            // Numbered as the recording's client opened them; each message line carries its operation's number.
            lines.append("operations:")
            let width = String(operations.operations.count).count + 1
            for (index, operation) in operations.operations.enumerated() {
                let variables = operation.variables.map { " " + $0.compactJSON } ?? ""
                let number = "#\(index + 1)".padding(toLength: width, withPad: " ", startingAt: 0)
                lines.append("  \(number) \(operation.label)\(variables)  (\(Formatting.count(operation.answers.count, "answer")))")
            }
        }
        let tagWidth = operations.isEmpty ? 0 : String(operations.operations.count).count + 2
        for (index, message) in conversation.messages.enumerated() {
            let arrow = message.direction == .client ? "->" : "<-"
            let offset = String(format: "%8.1f ms", message.offsetMilliseconds)
            let fragments = message.fragments.count > 1 ? " (\(message.fragments.count) fragments)" : ""
            let tag =
                operations.isEmpty
                ? "" : (operations.operationOfMessage[index].map { "#\($0 + 1)" } ?? "").padding(toLength: tagWidth, withPad: " ", startingAt: 0)
            lines.append(
                "\(offset) \(arrow) \(message.kind.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)) \(tag)\(message.preview(limit: 100))\(fragments)"
            )
        }
        lines.append("ended: \(conversation.end.summary)")
        return lines
    }
}
