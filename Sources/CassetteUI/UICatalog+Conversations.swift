import Foundation
import WellPlateCore

/// The WebSocket conversations of a store as the UI shows them: a list beside the recordings, and
/// one conversation as a timeline of its messages and how it ended.
extension UICatalog {
    /// `{"conversations": [{id, cassette, url, key, sequence, recordedAt, messages, end}]}`:
    /// every conversation (of `cassette`, when given), without payloads.
    package func conversations(cassette: String?) async throws -> JSONValue {
        let headings = try await store.conversationHeadings(cassette: cassette)
        // A gRPC call's kind (`server streaming`) comes from the store's descriptors.
        let schema = headings.contains { $0.conversation.grpc != nil } ? try await store.protoSchema() : ProtoSchema()
        return ["conversations": .array(headings.map { .object(Self.heading(of: $0.conversation, messages: $0.messages, schema: schema)) })]
    }

    /// One conversation with its handshake and every message; `nil` when the store has no row `id`.
    /// A gRPC call's messages are decoded with the store's descriptors.
    package func conversation(id: Int64) async throws -> JSONValue? {
        guard let found = try await store.conversation(id: id) else { return nil }
        return conversationDetail(found, schema: found.grpc == nil ? ProtoSchema() : try await store.protoSchema())
    }

    /// The timeline of `conversation`, as the page shows it (and as the report carries each one):
    /// each message with its direction, offset, kind, size, frames and payload (a body as
    /// `body(_:contentType:)` gives it: text, or base64 for the page's hex dump).
    package func conversationDetail(_ conversation: Conversation, schema: ProtoSchema = ProtoSchema()) -> JSONValue {
        if conversation.grpc != nil { return callDetail(conversation, schema: schema) }
        var object = Self.heading(of: conversation, messages: conversation.messages.count)
        object["requestHeaders"] = Self.headers(conversation.requestHeaders)
        object["subprotocol"] = conversation.subprotocol.map(JSONValue.string) ?? .null
        object["extensions"] = conversation.extensions.map(JSONValue.string) ?? .null
        // The operations it carried (GraphQL over WebSocket, JSON-RPC, Socket.IO acks), numbered
        // as `cassette show` numbers them; each message names its operation's number.
        let operations = ConversationOperations(conversation)
        object["operations"] = .array(
            operations.operations.enumerated().map { index, operation in
                ["number": .integer(Int64(index + 1)), "operation": .string(operation.label), "variables": operation.variables ?? .null]
            })
        object["timeline"] = .array(
            conversation.messages.enumerated().map { index, message in
                var entry: JSONObject = [
                    "direction": .string(message.direction.rawValue), "kind": .string(message.kind.rawValue),
                    "offsetMs": .number(message.offsetMilliseconds), "size": .integer(Int64(message.payload.count)),
                    "frames": .integer(Int64(message.fragments.count)),
                    "operation": operations.operationOfMessage.indices.contains(index)
                        ? operations.operationOfMessage[index].map { .integer(Int64($0 + 1)) } ?? .null : .null,
                ]
                if message.kind == .close {
                    // A close frame's payload is a code and a reason: shown as such, not as bytes.
                    entry["close"] = .string(message.preview(limit: 200))
                } else {
                    entry["payload"] = body(message.payload, contentType: nil)
                }
                return .object(entry)
            })
        return .object(object)
    }

    /// What the list and the detail both show: where, when, how many messages, how it ended.
    static func heading(of conversation: Conversation, messages: Int, schema: ProtoSchema = ProtoSchema()) -> JSONObject {
        [
            "id": .integer(conversation.id ?? 0),
            "cassette": .string(conversation.cassette),
            "url": .string(conversation.url),
            "key": .string(conversation.key),
            "sequence": .integer(Int64(conversation.sequence)),
            "recordedAt": .string(timestamp(conversation.recordedAt)),
            "messages": .integer(Int64(messages)),
            "end": end(conversation.end),
            "grpc": conversation.grpc == nil ? .null : grpcStatus(conversation, schema: schema),
        ]
    }

    /// `{kind: closed|dropped|cut, by, code, reason, summary}`.
    static func end(_ end: ConversationEnd) -> JSONValue {
        var object: JSONObject = ["summary": .string(end.summary)]
        switch end {
        case .closed(let by, let code, let reason):
            object["kind"] = "closed"
            object["by"] = .string(by.rawValue)
            object["code"] = code.map { .integer(Int64($0)) } ?? .null
            object["reason"] = .string(reason)
        case .dropped(let by, let reset):
            object["kind"] = "dropped"
            object["by"] = .string(by.rawValue)
            if let reset { object["reset"] = .string(reset.name) }
        case .cut:
            object["kind"] = "cut"
        }
        return .object(object)
    }
}
