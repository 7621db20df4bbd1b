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
        // The same bytes match whatever redaction would make of them, and most replayed messages
        // are the recorded ones: they skip the JSON walk and the secret scan (`callgrind`: most of
        // a replayed turn's own cost).
        if live == recorded { return true }
        var secrets = secrets
        let redacted = redactedMessage(live, secrets: &secrets)
        if redacted == recorded { return true }
        guard let liveText = CanonicalJSON.canonicalText(of: redacted, ignoring: rules.ignoredBodyFields),
            let recordedText = CanonicalJSON.canonicalText(of: recorded, ignoring: rules.ignoredBodyFields)
        else { return false }
        return liveText == recordedText
    }
}
