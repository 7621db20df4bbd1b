import Foundation

/// WebSocket message payloads, redacted and compared under the same contract as request bodies.
extension ReplayKeyer {
    /// `payload` as it is stored: the values of secret JSON fields replaced in place (a message
    /// such as `{"type":"auth","token":"…"}`), then every value in `secrets` (the handshake's and
    /// those found in earlier messages) and every learned secret scrubbed. Adds the values it
    /// replaced to `secrets`, so a server message that repeats them is scrubbed too.
    package func redactedMessage(_ payload: Data, secrets: inout SecretValues) -> Data {
        guard redactor.isEnabled else { return payload }
        return scrubLearned(body: redactor.redactedMessage(payload, secrets: &secrets))
    }

    /// Whether a live client message (redacted first, as it would have been stored) is the
    /// recorded one: byte for byte, or, when both are JSON, as canonical JSON with the matching
    /// rules' ignored body fields left out.
    package func messageMatches(live: Data, recorded: Data, secrets: SecretValues) -> Bool {
        var secrets = secrets
        let redacted = redactedMessage(live, secrets: &secrets)
        if redacted == recorded || live == recorded { return true }
        guard let liveText = CanonicalJSON.canonicalText(of: redacted, ignoring: rules.ignoredBodyFields),
            let recordedText = CanonicalJSON.canonicalText(of: recorded, ignoring: rules.ignoredBodyFields)
        else { return false }
        return liveText == recordedText
    }
}
