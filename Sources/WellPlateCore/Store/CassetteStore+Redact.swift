import Foundation

/// One stored interaction that redaction with the current rules changes.
package struct StoredRedaction: Sendable, Equatable {
    package var cassette: String
    package var key: String
    package var sequence: Int
    /// The key after redaction, when it changed (a secret in the URL path or body).
    package var newKey: String?
    /// The parts rewritten: `request URL`, `request headers`, `request body`, `response headers`, `response body`.
    package var parts: [String]
}

extension CassetteStore {
    /// Applies `redactor` to every stored interaction of `cassette`, in one transaction, and
    /// recomputes keys (with the cassette's matching rules) and sequence positions. With
    /// `apply: false` only reports what would change. Call `eraseFreedSpace()` afterwards so
    /// that the replaced values leave the file. `progress` hears of each interaction redacted.
    package func redactStored(
        cassette: String, with redactor: Redactor, apply: Bool, progress: ProgressHandler? = nil
    ) throws(CassetteStoreError) -> [StoredRedaction] {
        let rules = try self.cassette(named: cassette)?.matchingRules ?? .default
        let learned = try learnedSecrets()
        let work = { (connection: SQLiteConnection) throws -> [StoredRedaction] in
            // Zeroes the bytes of every row this connection deletes or rewrites.
            try connection.execute("PRAGMA secure_delete = ON")
            let select = try connection.prepare(
                "SELECT \(InteractionColumn.selectList) FROM interactions WHERE cassette = ? ORDER BY recorded_at, sequence, id")
            try select.bind(cassette, at: 1)
            var reader = InteractionRowReader()
            var stored: [Interaction] = []
            try select.forEachRow { row in stored.append(try reader.read(row)) }
            // Secrets the rules now find in responses are secrets in every request, earlier ones too.
            var newlyLearned: [LearnedSecrets.StoredDigest] = []
            for old in stored {
                let found = redactor.redactCollectingSecrets(responseHeaders: old.responseHeaders, body: old.responseBody, requestSecrets: SecretValues()).found
                newlyLearned += learned.learn(found)
            }
            var rows: [(old: Interaction, new: Interaction)] = []
            var changes: [StoredRedaction] = []
            progress?(0, stored.count)
            for old in stored {
                var new = redactor.redact(old).scrubbingLearned(learned)
                new.key = RequestKey(recording: new, rules: rules).rawValue
                let parts = Self.changedParts(old, new)
                if !parts.isEmpty {
                    changes.append(
                        StoredRedaction(cassette: cassette, key: old.key, sequence: old.sequence, newKey: new.key == old.key ? nil : new.key, parts: parts))
                }
                rows.append((old, new))
                progress?(rows.count, stored.count)
            }
            guard apply, !changes.isEmpty else { return changes }
            let insert = try connection.cachedStatement("INSERT OR IGNORE INTO learned_secrets (salt, digest) VALUES (?, ?)")
            for entry in newlyLearned { try insert.run(entry.salt, entry.digest) }
            // Parked on negative sequences first: (cassette, key, sequence) stays unique meanwhile.
            try connection.cachedStatement("UPDATE interactions SET sequence = -1 - sequence WHERE cassette = ?").run(cassette)
            let update = try connection.cachedStatement(
                """
                UPDATE interactions SET url = ?, request_key = ?, sequence = ?, request_headers = ?, request_body = ?,
                    response_headers = ?, response_body = ? WHERE id = ?
                """)
            var nextSequence: [String: Int] = [:]
            for (old, new) in rows {
                let sequence = nextSequence[new.key, default: 0]
                nextSequence[new.key] = sequence + 1
                try update.run(
                    new.url, new.key, sequence, HeaderLines.encode(new.requestHeaders), new.requestBody,
                    HeaderLines.encode(new.responseHeaders, decodedEncodingAt: new.storedEncodingPosition, echoes: new.secretEchoes), new.responseBody,
                    old.id ?? 0
                )
            }
            return changes
        }
        if apply {
            return try writing { connection in try connection.transaction { try work(connection) } }
        }
        return try reading { connection in try work(connection) }
    }

    /// Leaves no copy of deleted or rewritten content in the store's files: the WAL is
    /// checkpointed and truncated, and the database rebuilt (`VACUUM`) with `secure_delete` on,
    /// so no free page keeps old bytes. Fails when another connection keeps the WAL in use.
    package func eraseFreedSpace() throws(CassetteStoreError) {
        let path = path
        try writing { connection in
            try connection.execute("PRAGMA secure_delete = ON")
            try Self.checkpoint(connection, path: path)
            try connection.execute("VACUUM")
            try Self.checkpoint(connection, path: path)
        }
    }

    private static func checkpoint(_ connection: SQLiteConnection, path: String) throws {
        let busy = try connection.prepare("PRAGMA wal_checkpoint(TRUNCATE)").firstRow { $0.int(at: 0) } ?? 0
        if busy != 0 {
            throw CassetteStoreError(
                .io, path: path,
                message: "\(path) is in use by another process (a recorder or replayer?), so its old pages could not be erased; stop it and run again")
        }
    }

    private static func changedParts(_ old: Interaction, _ new: Interaction) -> [String] {
        var parts: [String] = []
        if old.url != new.url { parts.append("request URL") }
        if old.requestHeaders != new.requestHeaders { parts.append("request headers") }
        if old.requestBody != new.requestBody { parts.append("request body") }
        if old.responseHeaders != new.responseHeaders { parts.append("response headers") }
        if old.responseBody != new.responseBody { parts.append("response body") }
        return parts
    }
}
