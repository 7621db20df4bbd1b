import Foundation

/// WebSocket message payloads, redacted and compared under the same contract as request bodies.
extension ReplayKeyer {
    /// `payload` as it is stored: the values of secret JSON fields replaced in place (a message
    /// such as `{"type":"auth","token":"…"}`), the credential shapes `messageSecretShapes` finds,
    /// then every value in `secrets` (the handshake's and those found in earlier messages) and
    /// every learned secret scrubbed. Adds the values it replaced to `secrets`, so a server
    /// message that repeats them is scrubbed too.
    package func redactedMessage(_ payload: Data, secrets: inout SecretValues) -> Data {
        redactedMessage(payload, secrets: &secrets, findingShapes: true)
    }

    /// `findingShapes`: also look for credential shapes (a scan of every byte, skipped when the
    /// recording it is compared with had nothing replaced).
    private func redactedMessage(_ payload: Data, secrets: inout SecretValues, findingShapes: Bool) -> Data {
        guard redactor.isEnabled else { return payload }
        if findingShapes {
            for value in messageSecretShapes.find(payload) { secrets.insert(value) }
        }
        return scrubLearned(body: redactor.redactedMessage(payload, secrets: &secrets))
    }

    /// Whether a live client message (redacted first, as it would have been stored) is the
    /// recorded one: byte for byte, or, when both are JSON, as canonical JSON with the matching
    /// rules' ignored body fields left out; a Socket.IO packet (`42/chat,7["add",1,2]`) by its
    /// kind, namespace and acknowledgement id, then its JSON as canonical JSON.
    package func messageMatches(live: Data, recorded: Data, secrets: SecretValues) -> Bool {
        // The same bytes match whatever redaction would make of them, and most replayed messages
        // are the recorded ones: they skip the JSON walk and the secret scan (`callgrind`: most of
        // a replayed turn's own cost).
        if live == recorded { return true }
        var secrets = secrets
        let redacted = redactedMessage(live, secrets: &secrets, findingShapes: recorded.range(of: Self.placeholderBytes) != nil)
        if redacted == recorded { return true }
        if let livePacket = SocketIOPacket(redacted), let recordedPacket = SocketIOPacket(recorded) {
            return livePacket.sameFrame(redacted, as: recordedPacket, in: recorded)
                && canonicalJSONMatches(SocketIOPacket.slice(redacted, livePacket.json), SocketIOPacket.slice(recorded, recordedPacket.json))
        }
        return canonicalJSONMatches(redacted, recorded)
    }

    private static let placeholderBytes = Data(Redactor.placeholder.utf8)

    /// The close frame payload `payload` (a code, then a reason) with its reason redacted as a message is.
    package func redactedClose(_ payload: Data, secrets: inout SecretValues) -> Data {
        guard payload.count > 2 else { return payload }
        let reason = redactedMessage(Data(payload.dropFirst(2)), secrets: &secrets)
        return Data(payload.prefix(2)) + reason
    }

    private func canonicalJSONMatches(_ live: Data, _ recorded: Data) -> Bool {
        guard let liveText = CanonicalJSON.canonicalText(of: live, ignoring: rules.ignoredBodyFields),
            let recordedText = CanonicalJSON.canonicalText(of: recorded, ignoring: rules.ignoredBodyFields)
        else { return false }
        return liveText == recordedText
    }
}
