/// The store's tables, one migration per schema version. Never edit a shipped migration; add one.
enum CassetteSchema {
    static let migrator = SQLiteMigrator(
        applicationName: "cassette",
        migrations: [
            SQLiteMigration(
                version: 1,
                sql: """
                    CREATE TABLE cassettes (
                        name TEXT PRIMARY KEY NOT NULL,
                        upstream TEXT,
                        matching_rules TEXT,
                        created_at REAL NOT NULL
                    );
                    CREATE TABLE interactions (
                        id INTEGER PRIMARY KEY,
                        cassette TEXT NOT NULL,
                        method TEXT NOT NULL,
                        url TEXT NOT NULL,
                        request_key TEXT NOT NULL,
                        sequence INTEGER NOT NULL,
                        request_headers TEXT NOT NULL,
                        request_body BLOB,
                        status INTEGER NOT NULL,
                        response_headers TEXT NOT NULL,
                        response_body BLOB NOT NULL,
                        content_encoding TEXT,
                        recorded_at REAL NOT NULL,
                        duration_ms REAL NOT NULL,
                        UNIQUE (cassette, request_key, sequence)
                    );
                    CREATE INDEX interactions_by_recorded_at ON interactions (recorded_at);
                    """),
            // Replay usage, written only when asked (`--track-usage`): a table of its own, so reading
            // a store never writes and a version 1 file opened read-only just has no usage.
            SQLiteMigration(
                version: 2,
                sql: """
                    CREATE TABLE interaction_usage (
                        interaction_id INTEGER PRIMARY KEY,
                        replay_count INTEGER NOT NULL,
                        last_replayed_at REAL NOT NULL
                    );
                    CREATE TRIGGER interaction_usage_follows_deletes AFTER DELETE ON interactions
                    BEGIN DELETE FROM interaction_usage WHERE interaction_id = old.id; END;
                    """),
            // Streamed responses: when each piece of the body arrived (`ResponseChunk`). A table of
            // its own, so stores without it replay every body whole.
            SQLiteMigration(
                version: 3,
                sql: """
                    CREATE TABLE interaction_chunks (
                        interaction_id INTEGER PRIMARY KEY,
                        chunks TEXT NOT NULL
                    );
                    CREATE TRIGGER interaction_chunks_follow_deletes AFTER DELETE ON interactions
                    BEGIN DELETE FROM interaction_chunks WHERE interaction_id = old.id; END;
                    """),
            responseBodyLast,
            learnedSecrets,
            conversations,
            conversationUsage,
            grpc,
            httpVersions,
            grpcEndOffset,
        ])

    /// The oldest schema that opens read-only without upgrading: later migrations only add
    /// tables that readers treat as empty when missing, or move columns readers select by name.
    static let oldestReadableVersion = 1

    static let tables: Set<String> = ["cassettes", "interactions"]

}

/// The `interactions` columns an `Interaction` is read from (`InteractionRowReader`).
enum InteractionColumn: Int, SQLiteColumn {
    case id, cassette, method, url, requestKey, sequence, requestHeaders, requestBody, status
    case responseHeaders, responseBody, contentEncoding, recordedAt, durationMs
}

/// The `cassettes` columns a `CassetteInfo` is read from.
enum CassetteInfoColumn: Int, SQLiteColumn {
    case name, upstream, matchingRules, createdAt
}
