import Foundation
import HTTPTypes
import WellPlateCore

/// The recorded calls of one gRPC method as a fixture file (`export --fixtures` writes one per
/// method, `grpc/<package.Service>/<Method>.json`): its kind and message types, then one variant
/// per distinct request stream (compared in canonical form, as replay matches them, so repeated
/// calls make one variant, as a GraphQL operation's equal variables do), each with its requests
/// and responses as protobuf JSON (`protoc --decode_raw`'s text without descriptors), its
/// status, and its response headers and trailers.
package struct GRPCMethodFixture: Sendable {
    package let path: String
    package let calls: [Conversation]
    package let schema: ProtoSchema

    package init(path: String, calls: [Conversation], schema: ProtoSchema) {
        self.path = path
        self.calls = calls
        self.schema = schema
    }

    /// Every method's fixture, by path, from `conversations` (the gRPC calls among them).
    package static func all(_ conversations: [Conversation], schema: ProtoSchema) -> [GRPCMethodFixture] {
        let calls = conversations.filter { $0.grpc != nil }
        return Dictionary(grouping: calls, by: GRPCCallText.path(of:)).sorted { $0.key < $1.key }.map { path, calls in
            GRPCMethodFixture(path: path, calls: calls.sorted { $0.sequence < $1.sequence }, schema: schema)
        }
    }

    /// `grpc/shop.v1.Catalog/GetItem.json`.
    package var fileName: String {
        let parts = path.split(separator: "/").map(String.init)
        let service = parts.first ?? "unknown"
        let method = parts.count > 1 ? parts[1] : "call"
        return "grpc/\(Self.safe(service))/\(Self.safe(method)).json"
    }

    private static func safe(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-" ? $0 : "_" })
    }

    /// The variants: calls whose client messages are equal in canonical form make one (the first).
    package var variants: [Conversation] {
        var seen: Set<[Data]> = []
        return calls.filter { call in
            let requests = call.messages.filter { $0.direction == .client && $0.kind == .binary }.map {
                schema.canonicalForm(of: $0.payload, path: path, direction: .request)
            }
            return seen.insert(requests).inserted
        }
    }

    package var jsonValue: JSONValue {
        var object = JSONObject()
        object["method"] = .string(path)
        if let method = schema.methods[path] {
            object["kind"] = .string(method.kind)
            object["requestType"] = .string(method.inputType)
            object["responseType"] = .string(method.outputType)
        }
        object["variants"] = .array(variants.map(variant))
        return .object(object)
    }

    private func variant(_ call: Conversation) -> JSONValue {
        var object = JSONObject()
        object["requests"] = .array(messages(call, .client))
        object["responses"] = .array(messages(call, .server))
        var status = JSONObject()
        switch call.end {
        case .closed(_, let code, let reason):
            status["code"] = code.map { .integer(Int64($0)) } ?? .null
            status["name"] = .string(code.flatMap(GRPCStatusCode.init(rawValue:))?.name ?? "UNKNOWN")
            status["message"] = .string(reason)
        case .dropped(let by, let reset):
            status["cut"] = .string(by == .server ? "the upstream reset the call" : "the client reset the call")
            if let reset { status["reset"] = .string("RST_STREAM \(reset.name)") }
        case .cut:
            status["cut"] = .string("the recorder stopped before the call ended")
        }
        object["status"] = .object(status)
        if let headers = call.grpc?.responseHeaders { object["responseHeaders"] = Self.fields(headers) }
        object["trailers"] = Self.fields(call.grpc?.trailers ?? [:])
        return .object(object)
    }

    private func messages(_ call: Conversation, _ side: ConversationSide) -> [JSONValue] {
        call.messages.filter { $0.direction == side && $0.kind == .binary }.map { message in
            let direction: GRPCDirection = side == .client ? .request : .response
            if let value = schema.jsonValue(message.payload, path: path, direction: direction) { return value }
            return .object(
                JSONObject([("raw", .string(ProtoRawText.text(of: message.payload) ?? "")), ("base64", .string(message.payload.base64EncodedString()))]))
        }
    }

    private static func fields(_ fields: HTTPFields) -> JSONValue {
        .object(JSONObject(fields.map { ($0.name.canonicalName, JSONValue.string($0.value)) }))
    }

    /// Whether a fixture file's JSON is a method's file as `export --fixtures` writes it (a
    /// `method` path and its `variants`), which the drift check reads per method, not as a response.
    package static func describes(_ value: JSONValue) -> Bool {
        value["method"]?.stringValue?.hasPrefix("/") == true && value["variants"]?.arrayValue != nil
    }

    /// The method's path and the responses of its variants that ended `OK` (the shape clients
    /// were built against) when `value` is such a file, as a drift check reads it; raw messages
    /// (written without descriptors) are left out: they have no fields to compare.
    package static func method(of value: JSONValue) -> (path: String, responses: [JSONValue])? {
        guard describes(value), let path = value["method"]?.stringValue, let variants = value["variants"]?.arrayValue else { return nil }
        let responses = variants.filter { ($0["status"]?["code"]).map { $0 == .integer(0) } ?? false }.flatMap { variant in
            (variant["responses"]?.arrayValue ?? []).filter { $0["raw"] == nil || $0["base64"] == nil }
        }
        return (path, responses)
    }

    /// The file's bytes: pretty JSON with a final newline.
    package func encoded() -> Data {
        jsonValue.jsonData(options: [.prettyPrinted]) + Data("\n".utf8)
    }
}
