import Foundation

extension Redactor {
    /// A WebSocket message payload as it is stored: the values of secret JSON fields replaced in
    /// place (`{"type":"auth","token":"…"}`), then every value in `secrets` scrubbed. Adds the
    /// values it replaced to `secrets`, so a later message that repeats them is scrubbed too. The
    /// proxy adds learned secrets (`ReplayKeyer.redactedMessage`); a HAR import has none.
    /// A Socket.IO packet (`42["auth",{"token":"…"}]`) has its JSON redacted so, after the
    /// packet's kind, namespace and acknowledgement id.
    package func redactedMessage(_ payload: Data, secrets: inout SecretValues) -> Data {
        guard isEnabled else { return payload }
        var body = payload
        if let redacted = redact(jsonBody: payload, collecting: &secrets) {
            body = redacted
        } else if let packet = SocketIOPacket(payload), let json = redact(jsonBody: SocketIOPacket.slice(payload, packet.json), collecting: &secrets) {
            body = SocketIOPacket.slice(payload, 0..<packet.json.lowerBound) + json
        }
        return secrets.isEmpty ? body : scrub(body, secrets: secrets)
    }
}
