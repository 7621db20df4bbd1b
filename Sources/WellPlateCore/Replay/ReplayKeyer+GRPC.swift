import Foundation

/// gRPC messages, redacted as WebSocket messages are, one string field at a time.
extension ReplayKeyer {
    /// `message` as it is stored: each string field redacted as a WebSocket text message is
    /// (secret JSON fields, credential shapes, the values in `secrets`, learned secrets), then the
    /// message re-encoded. Adds the values it replaced to `secrets`, so the server messages that
    /// repeat them are scrubbed too.
    package func redactedGRPCMessage(
        _ message: Data, schema: ProtoSchema, path: String, direction: GRPCDirection, secrets: inout SecretValues
    ) -> Data {
        guard redactor.isEnabled else { return message }
        return schema.rewritingStrings(in: message, path: path, direction: direction) { redactedMessage($0, secrets: &secrets) }
    }
}
