import Foundation

extension Redactor {
    /// A WebSocket message payload as it is stored: the values of secret JSON fields replaced in
    /// place (`{"type":"auth","token":"…"}`), then every value in `secrets` scrubbed. Adds the
    /// values it replaced to `secrets`, so a later message that repeats them is scrubbed too. The
    /// proxy adds learned secrets (`ReplayKeyer.redactedMessage`); a HAR import has none.
    package func redactedMessage(_ payload: Data, secrets: inout SecretValues) -> Data {
        guard isEnabled else { return payload }
        let body = redact(jsonBody: payload, collecting: &secrets) ?? payload
        return secrets.isEmpty ? body : scrub(body, secrets: secrets)
    }
}
