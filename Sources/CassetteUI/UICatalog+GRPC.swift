import Foundation
import HTTPTypes
import WellPlateCore

/// A recorded gRPC call as the UI shows it (stored as a conversation with `grpc` heads): listed
/// by its method and status, and opened as a timeline of its messages both ways, each as
/// protobuf JSON decoded with the store's descriptors (`protoc --decode_raw`'s text without
/// them), between its request metadata, its response headers and its trailers.
extension UICatalog {
    /// `{method, kind, status, code, message}` of the list and the detail: the method's path
    /// (`/shop.v1.Catalog/GetItem`), its kind when the descriptors know it, the `grpc-status` by
    /// name (`cut` or `upstream reset` for a call that never got one) and the `grpc-message`.
    static func grpcStatus(_ call: Conversation, schema: ProtoSchema = ProtoSchema()) -> JSONValue {
        var object: JSONObject = ["method": .string(path(of: call)), "kind": schema.methods[path(of: call)].map { .string($0.kind) } ?? .null]
        switch call.end {
        case .closed(_, let code, let reason):
            object["status"] = .string(code.flatMap(GRPCStatusCode.init(rawValue:))?.name ?? code.map(String.init) ?? "no status")
            object["code"] = code.map { .integer(Int64($0)) } ?? .null
            object["message"] = reason.isEmpty ? .null : .string(reason)
        case .dropped(let by, let reset):
            object["status"] = .string(by == .server ? "upstream reset" : "client reset")
            object["message"] = reset.map { .string("RST_STREAM \($0.name)") } ?? .null
        case .cut:
            object["status"] = "cut"
        }
        return .object(object)
    }

    /// The method's path: the key without its `POST `.
    static func path(of call: Conversation) -> String {
        call.key.hasPrefix("POST ") ? String(call.key.dropFirst(5)) : call.url
    }

    /// The call's detail: the heading, `grpc` (status, kind, message types, response headers or
    /// `trailersOnly`, trailers), the request metadata, and the timeline: each message with its
    /// direction, offset, size (protobuf bytes) and payload as protobuf JSON (`decoded`: the
    /// message type) or raw text (`decoded`: `raw`); the client's half-close as `end of stream`.
    func callDetail(_ call: Conversation, schema: ProtoSchema) -> JSONValue {
        var object = Self.heading(of: call, messages: call.messages.count, schema: schema)
        let path = Self.path(of: call)
        var grpc = Self.grpcStatus(call, schema: schema).objectValue ?? [:]
        grpc["requestType"] = schema.messageType(path: path, direction: .request).map(JSONValue.string) ?? .null
        grpc["responseType"] = schema.messageType(path: path, direction: .response).map(JSONValue.string) ?? .null
        grpc["trailersOnly"] = .bool(call.grpc?.isTrailersOnly ?? true)
        grpc["responseHeaders"] = call.grpc?.responseHeaders.map(Self.headers) ?? .null
        grpc["trailers"] = Self.headers(call.grpc?.trailers ?? [:])
        object["grpc"] = .object(grpc)
        object["requestHeaders"] = Self.headers(call.requestHeaders)
        object["subprotocol"] = .null
        object["extensions"] = .null
        object["operations"] = []
        object["timeline"] = .array(
            call.messages.map { message in
                var entry: JSONObject = [
                    "direction": .string(message.direction.rawValue), "offsetMs": .number(message.offsetMilliseconds),
                    "size": .integer(Int64(message.payload.count)), "frames": 1, "operation": .null,
                ]
                guard message.isData else {
                    entry["kind"] = "end of stream"
                    entry["close"] = .string("the client ended its stream")
                    return .object(entry)
                }
                entry["kind"] = "message"
                let direction: GRPCDirection = message.direction == .client ? .request : .response
                if let value = schema.jsonValue(message.payload, path: path, direction: direction) {
                    entry["decoded"] = schema.messageType(path: path, direction: direction).map(JSONValue.string) ?? .null
                    entry["payload"] = body(Data(value.jsonString(options: [.prettyPrinted]).utf8), contentType: "application/json")
                } else if let raw = ProtoRawText.text(of: message.payload) {
                    entry["decoded"] = "raw"
                    entry["payload"] = body(Data(raw.utf8), contentType: "text/plain")
                } else {
                    entry["decoded"] = .null
                    entry["payload"] = body(message.payload, contentType: nil)
                }
                return .object(entry)
            })
        return .object(object)
    }
}
