import Foundation
import HTTPTypes

extension CassetteStore {
    /// Applies `redactor` to every stored WebSocket conversation of `cassette` as recording it
    /// today would store it: the handshake's URL and headers as a request's, each text or binary
    /// message as the recorder redacts it (values of secret JSON fields, the handshake's secrets
    /// and those of earlier messages, learned secrets), and the values `shapedSecrets` finds in a
    /// message (the token shapes `cassette audit` knows, which the core cannot see). Those values
    /// are learned (their keyed hashes stored, as for secrets found in responses), so a replay
    /// scrubs them from the live client's message too and it still matches. Keys and sequence
    /// positions are recomputed when a handshake's URL changed. With `apply: false` it only
    /// reports what would change; call `eraseFreedSpace()` afterwards.
    package func redactStoredConversations(
        cassette: String, with redactor: Redactor, shapedSecrets: @escaping @Sendable (Data) -> [String], apply: Bool
    ) throws(CassetteStoreError) -> [StoredRedaction] {
        let stored = try conversations(cassette: cassette)
        guard !stored.isEmpty else { return [] }
        let rules = try self.cassette(named: cassette)?.matchingRules ?? .default
        let learned = try learnedSecrets()
        // Every shape found anywhere first: a token the server sent is scrubbed from the client's
        // earlier messages too.
        var shapes = SecretValues()
        for conversation in stored {
            for message in conversation.messages where message.isData {
                for value in shapedSecrets(message.payload) { shapes.insert(value) }
            }
        }
        let newlyLearned = redactor.isEnabled ? learned.learn(shapes) : []
        // gRPC messages are redacted string field by string field and re-encoded.
        let schema = stored.contains { $0.grpc != nil } ? ((try? protoSchema()) ?? ProtoSchema()) : ProtoSchema()
        var rows: [(old: Conversation, new: Conversation)] = []
        var changes: [StoredRedaction] = []
        for old in stored {
            let new = Self.redacted(old, by: redactor, rules: rules, learned: learned, shapes: shapes, schema: schema)
            let parts = Self.changedParts(old, new)
            if !parts.isEmpty {
                changes.append(
                    StoredRedaction(cassette: cassette, key: old.key, sequence: old.sequence, newKey: new.key == old.key ? nil : new.key, parts: parts))
            }
            rows.append((old, new))
        }
        guard apply, !changes.isEmpty else { return changes }
        try writing { connection in
            try connection.transaction {
                try connection.execute("PRAGMA secure_delete = ON")
                let insert = try connection.cachedStatement("INSERT OR IGNORE INTO learned_secrets (salt, digest) VALUES (?, ?)")
                for entry in newlyLearned { try insert.run(entry.salt, entry.digest) }
                // Parked on negative sequences first: (cassette, key, sequence) stays unique meanwhile.
                try connection.prepare("UPDATE conversations SET sequence = -1 - sequence WHERE cassette = ?").run(cassette)
                let update = try connection.prepare("UPDATE conversations SET url = ?, request_key = ?, sequence = ?, request_headers = ? WHERE id = ?")
                let message = try connection.prepare("UPDATE conversation_messages SET payload = ? WHERE conversation_id = ? AND position = ?")
                var nextSequence: [String: Int] = [:]
                for (old, new) in rows.sorted(by: { ($0.old.key, $0.old.sequence) < ($1.old.key, $1.old.sequence) }) {
                    let sequence = nextSequence[new.key, default: 0]
                    nextSequence[new.key] = sequence + 1
                    let id = old.id ?? 0
                    try update.run(new.url, new.key, sequence, HeaderLines.encode(new.requestHeaders), id)
                    if new.grpc != old.grpc, let heads = new.grpc { try Self.store(heads, conversation: id, into: connection) }
                    for (position, (before, after)) in zip(old.messages, new.messages).enumerated() where before.payload != after.payload {
                        try message.run(after.payload, id, position)
                    }
                }
            }
        }
        return changes
    }

    /// `conversation` as it would be stored today.
    private static func redacted(
        _ conversation: Conversation, by redactor: Redactor, rules: MatchingRules, learned: LearnedSecrets, shapes: SecretValues, schema: ProtoSchema
    ) -> Conversation {
        guard redactor.isEnabled else { return conversation }
        var result = conversation
        let handshake = Interaction(
            cassette: conversation.cassette, method: .get, url: conversation.url, key: conversation.key, requestHeaders: conversation.requestHeaders,
            statusCode: 101, recordedAt: conversation.recordedAt
        ).redactedForStorage(by: redactor, rules: rules).scrubbingLearned(learned)
        result.url = handshake.url
        result.requestHeaders = handshake.requestHeaders
        // The key as the proxy made it (the origin first on a multi-host cassette) unless the
        // URL itself held a secret.
        if handshake.url != conversation.url { result.key = RequestKey(recording: handshake, rules: rules).rawValue }
        var secrets = redactor.secretValues(url: conversation.url, headerFields: conversation.requestHeaders, body: nil, learned: learned)
        for index in result.messages.indices where result.messages[index].isData {
            let redact = { (bytes: Data, secrets: inout SecretValues) -> Data in
                var payload = redactor.redactedMessage(bytes, secrets: &secrets)
                if payload.count <= ReplayKeyer.learnedScrubBodyLimit { payload = learned.scrub(payload) }
                if !shapes.isEmpty { payload = redactor.scrub(payload, secrets: shapes) }
                return payload
            }
            let message = result.messages[index]
            if conversation.grpc != nil {
                // A protobuf string changed in place would break its length prefix.
                result.messages[index].payload = schema.rewritingStrings(
                    in: message.payload, path: conversation.url, direction: message.direction == .client ? .request : .response
                ) { redact($0, &secrets) }
            } else {
                result.messages[index].payload = redact(message.payload, &secrets)
            }
        }
        // A gRPC call's response metadata as a response's headers (a store recorded before they were).
        if let heads = conversation.grpc {
            let redact = { (fields: HTTPFields) in
                learned.scrub(redactor.redact(responseHeaders: fields, body: Data(), requestSecrets: secrets).headerFields)
            }
            result.grpc = GRPCCallHeads(
                responseHeaders: heads.responseHeaders.map(redact), trailers: redact(heads.trailers), endOffsetMilliseconds: heads.endOffsetMilliseconds)
        }
        return result
    }

    private static func changedParts(_ old: Conversation, _ new: Conversation) -> [String] {
        var parts: [String] = []
        if old.url != new.url { parts.append("handshake URL") }
        if old.requestHeaders != new.requestHeaders { parts.append(old.grpc == nil ? "handshake headers" : "request metadata") }
        if old.grpc != new.grpc { parts.append("response metadata") }
        let changed = zip(old.messages, new.messages).enumerated().filter { $0.element.0.payload != $0.element.1.payload }.map { String($0.offset) }
        if !changed.isEmpty { parts.append("WebSocket message\(changed.count == 1 ? "" : "s") \(changed.joined(separator: ", "))") }
        return parts
    }
}
