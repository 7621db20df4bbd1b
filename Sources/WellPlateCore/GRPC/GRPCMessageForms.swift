import Foundation

/// Which way a gRPC message went, for choosing its type: the method's input or output.
package enum GRPCDirection: Sendable {
    case request, response
}

extension ProtoSchema {
    /// The message type of `path`'s messages going `direction`, when the schema knows the method.
    package func messageType(path: String, direction: GRPCDirection) -> String? {
        guard let method = methods[path] else { return nil }
        return direction == .request ? method.inputType : method.outputType
    }

    /// The form two messages are compared in: their protobuf JSON with sorted keys and proto3
    /// defaults left out, so encodings that differ only in field order or explicit defaults are
    /// equal; the bytes themselves when the schema does not know the method or they do not parse.
    package func canonicalForm(of message: Data, path: String, direction: GRPCDirection) -> Data {
        guard let type = messageType(path: path, direction: direction), let value = try? json(of: message, type: type) else { return message }
        return value.jsonData(options: .sortedKeys)
    }

    /// The message as people read it: protobuf JSON (pretty) when the schema knows it, else
    /// `protoc --decode_raw`'s text, else its size and first bytes in hex.
    package func display(_ message: Data, path: String, direction: GRPCDirection) -> String {
        if let value = jsonValue(message, path: path, direction: direction) {
            return value.jsonString(options: [.prettyPrinted])
        }
        return ProtoRawText.text(of: message) ?? "\(message.count) bytes: " + message.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The message as protobuf JSON, when the schema knows its type and it parses.
    package func jsonValue(_ message: Data, path: String, direction: GRPCDirection) -> JSONValue? {
        guard let type = messageType(path: path, direction: direction) else { return nil }
        return try? json(of: message, type: type)
    }
}
