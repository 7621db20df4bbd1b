/// Schema 4: `response_body` becomes the last column of `interactions`.
///
/// SQLite keeps a `zeroblob(n)` out of memory while it builds a row only when no non-empty
/// column follows it; with the body last, a large body is inserted as a zeroblob and written in
/// place (`CassetteStore.insert`, `SQLiteConnection.writeBlob`) instead of SQLite assembling a
/// second copy of it. SQLite cannot move a column, so the table is rebuilt (its documented
/// "other kinds of table schema changes" procedure): ids, rows and the chunk and usage tables
/// that refer to them by id are kept as they are. No foreign key refers to `interactions`, and
/// `DROP TABLE` fires no triggers, so nothing else is touched. Readers select by column name, so
/// a store of an older schema still opens read-only. The rebuild copies every row once.
extension CassetteSchema {
    static let responseBodyLast = SQLiteMigration(
        version: 4,
        sql: """
            CREATE TABLE interactions_v4 (
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
                content_encoding TEXT,
                recorded_at REAL NOT NULL,
                duration_ms REAL NOT NULL,
                response_body BLOB NOT NULL,
                UNIQUE (cassette, request_key, sequence)
            );
            INSERT INTO interactions_v4 (id, cassette, method, url, request_key, sequence, request_headers, request_body,
                status, response_headers, content_encoding, recorded_at, duration_ms, response_body)
            SELECT id, cassette, method, url, request_key, sequence, request_headers, request_body,
                status, response_headers, content_encoding, recorded_at, duration_ms, response_body
            FROM interactions;
            DROP TABLE interactions;
            ALTER TABLE interactions_v4 RENAME TO interactions;
            CREATE INDEX interactions_by_recorded_at ON interactions (recorded_at);
            CREATE TRIGGER interaction_usage_follows_deletes AFTER DELETE ON interactions
            BEGIN DELETE FROM interaction_usage WHERE interaction_id = old.id; END;
            CREATE TRIGGER interaction_chunks_follow_deletes AFTER DELETE ON interactions
            BEGIN DELETE FROM interaction_chunks WHERE interaction_id = old.id; END;
            """)
}
