import Foundation

/// Writing recordings: `record` returns only once its interaction's transaction has committed.
extension CassetteStore {
    /// Commits one interaction and returns it with its id and sequence. Interactions recorded
    /// while a transaction is being written share the next one (group commit,
    /// `CassetteStore+GroupCommit.swift`), in the order they arrived; either way this returns only
    /// after the transaction holding `interaction` has committed, so nothing returned is lost to a
    /// crash. The sequence is the next free position for its key, decided under the write lock,
    /// so concurrent recorders (even other processes) never collide. `replacingRowsUpTo` first
    /// deletes the recordings of the key with that row id or lower: record mode `all` replaces what
    /// existed before its session without touching what the session itself recorded concurrently.
    /// A failure fails only the interactions of the transaction it hit; earlier ones stay stored.
    @discardableResult
    package nonisolated func record(_ interaction: Interaction, replacingRowsUpTo lastReplacedRow: Int64? = nil) async throws(CassetteStoreError) -> Interaction
    {
        let outcome = await withCheckedContinuation { continuation in
            if recordingQueue.add(PendingRecording(interaction: interaction, lastReplacedRow: lastReplacedRow, continuation: continuation)) {
                scheduleGroupCommit()
            }
        }
        return try outcome.get()
    }

    /// Stores many interactions in one transaction (imports, generated stores); each gets the next
    /// free sequence position of its key, in the order given. All or nothing. `progress` hears of
    /// each row inserted.
    package func record(batch interactions: [Interaction], progress: ProgressHandler? = nil) throws(CassetteStoreError) {
        try writing { connection in
            try connection.transaction {
                for (index, interaction) in interactions.enumerated() {
                    try Self.insert(interaction, into: connection)
                    progress?(index + 1, interactions.count)
                }
            }
        }
    }

    /// Remembers where a cassette was recorded from and with which matching rules, so replay
    /// computes keys exactly as recording did.
    package func saveCassette(_ info: CassetteInfo) throws(CassetteStoreError) {
        try writing { connection in
            let rules = try info.storedRules
            try connection.cachedStatement(
                """
                INSERT INTO cassettes (name, upstream, matching_rules, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET upstream = excluded.upstream, matching_rules = excluded.matching_rules
                """
            ).run(info.name, info.upstream, rules, info.createdAt.timeIntervalSince1970)
        }
    }

    /// Bodies from this size on are inserted as a `zeroblob` and written into the row in place
    /// (`SQLiteConnection.writeBlob`), so SQLite never builds a row holding a second copy of them;
    /// that needs `response_body` to be the table's last column (schema 4).
    static let inPlaceBodySize = 1 << 20

    /// Inserts one row at the next sequence position of its key; the caller holds a transaction,
    /// whose rollback removes a row whose body could not be written.
    @discardableResult
    static func insert(_ interaction: Interaction, into connection: SQLiteConnection) throws -> Interaction {
        var stored = interaction
        let next = try connection.cachedStatement("SELECT coalesce(max(sequence) + 1, 0) FROM interactions WHERE cassette = ? AND request_key = ?")
        next.reset()
        try next.bind(interaction.cassette, interaction.key)
        stored.sequence = try next.step() ? next.int(at: 0) : 0
        next.reset()
        let insert = try connection.cachedStatement(
            """
            INSERT INTO interactions (cassette, method, url, request_key, sequence, request_headers, request_body,
                status, response_headers, response_body, content_encoding, recorded_at, duration_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let writesBodyInPlace = stored.responseBody.count >= inPlaceBodySize
        try insert.bind(values: [
            stored.cassette, stored.method.rawValue, stored.url, stored.key, stored.sequence,
            HeaderLines.encode(stored.requestHeaders), stored.requestBody, stored.statusCode,
            HeaderLines.encode(stored.responseHeaders, decodedEncodingAt: stored.storedEncodingPosition, echoes: stored.secretEchoes),
            writesBodyInPlace ? Data() : stored.responseBody,
            stored.contentEncoding,
            stored.recordedAt.timeIntervalSince1970, stored.durationMilliseconds,
        ])
        if writesBodyInPlace {
            try insert.bindZeroBlob(count: stored.responseBody.count, at: 10)
        }
        try insert.run()
        stored.id = connection.lastInsertRowID
        if writesBodyInPlace, let id = stored.id {
            try stored.responseBody.withUnsafeBytes { bytes in
                try connection.writeBlob(bytes, table: "interactions", column: "response_body", row: id)
            }
        }
        if let chunks = stored.chunks {
            try connection.cachedStatement("INSERT INTO interaction_chunks (interaction_id, chunks) VALUES (?, ?)")
                .run(stored.id, ResponseChunk.encode(chunks))
        }
        if let version = stored.httpVersion, let id = stored.id {
            try storeHTTPVersion(version, interaction: id, into: connection)
        }
        return stored
    }
}
