import Foundation
import HTTPTypes
import WellPlateCore

/// How the tools print a recorded gRPC call (a conversation with `grpc` heads): the method by
/// its path (`/shop.v1.Catalog/GetItem`) and kind, the request metadata, the response HEADERS
/// (or "trailers only"), each message as protobuf JSON when the store's descriptors know the
/// method (else as `protoc --decode_raw` prints it), and the trailers with the status by name.
package struct GRPCCallText: Sendable {
    package let schema: ProtoSchema

    package init(schema: ProtoSchema) {
        self.schema = schema
    }

    /// The method's path: the key without its `POST `.
    package static func path(of call: Conversation) -> String {
        call.key.hasPrefix("POST ") ? String(call.key.dropFirst(5)) : call.url
    }

    /// `OK`, `NOT_FOUND "item nope does not exist"`, `cut`, `upstream reset (RST_STREAM INTERNAL_ERROR)`...
    package static func status(of call: Conversation) -> String {
        switch call.end {
        case .closed(_, let code, let reason):
            let name = code.flatMap(GRPCStatusCode.init(rawValue:))?.name ?? code.map(String.init) ?? "no status"
            return reason.isEmpty ? name : "\(name) \"\(reason)\""
        case .dropped(.server, let reset?): return "upstream reset (RST_STREAM \(reset.name))"
        case .dropped(.server, nil): return "upstream reset"
        case .dropped(.client, _): return "client reset"
        case .cut: return "cut"
        }
    }

    /// `gRPC /shop.v1.Catalog/GetItem (unary)`.
    package func title(_ call: Conversation) -> String {
        let path = Self.path(of: call)
        return "gRPC \(path)" + (schema.methods[path].map { " (\($0.kind))" } ?? "")
    }

    /// A message as one line of protobuf JSON, or its raw form.
    package func message(_ message: ConversationMessage, path: String) -> String {
        if message.kind == .close { return "(end of the client's stream)" }
        let direction: GRPCDirection = message.direction == .client ? .request : .response
        if let value = schema.jsonValue(message.payload, path: path, direction: direction) { return value.compactJSON }
        return ProtoRawText.text(of: message.payload).map { "raw: " + $0.replacingOccurrences(of: "\n", with: " ") }
            ?? "\(message.payload.count) bytes"
    }

    /// The call whole, for `cassette show`; with `offsets`, each message's time since the call began.
    package func lines(_ call: Conversation, offsets: Bool = true) -> [String] {
        let path = Self.path(of: call)
        var lines = [title(call), "cassette \(call.cassette), sequence \(call.sequence), recorded \(Formatting.timestamp(call.recordedAt))"]
        lines.append("request metadata:")
        for field in call.requestHeaders { lines.append("  \(field.name.rawName): \(field.value)") }
        if let headers = call.grpc?.responseHeaders {
            lines.append("response headers:")
            for field in headers { lines.append("  \(field.name.rawName): \(field.value)") }
        } else if case .closed = call.end {
            lines.append("trailers only")
        } else {
            lines.append("no response headers")
        }
        for message in call.messages {
            let arrow = message.direction == .client ? "->" : "<-"
            let offset = offsets ? String(format: "%8.1f ms ", message.offsetMilliseconds) : ""
            lines.append("\(offset)\(arrow) \(self.message(message, path: path))")
        }
        if let trailers = call.grpc?.trailers, !trailers.isEmpty {
            lines.append("trailers:")
            for field in trailers {
                let note = field.name.canonicalName == "grpc-status" ? " (\(GRPCStatusCode.name(of: field.value)))" : ""
                lines.append("  \(field.name.rawName): \(field.value)\(note)")
            }
        }
        // A reset's moment, where it was stored, in the timeline's column.
        let end = offsets ? call.grpc?.endOffsetMilliseconds.map { String(format: "%8.1f ms ", $0) } ?? "" : ""
        lines.append("\(end)ended: \(Self.status(of: call))")
        return lines
    }
}
