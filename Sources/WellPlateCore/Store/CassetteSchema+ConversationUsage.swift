/// Schema 7: replay usage of WebSocket conversations, written only with `--track-usage`, as
/// `interaction_usage` is for recordings. A table of its own: an older store opened read-only
/// simply has no usage for its conversations.
extension CassetteSchema {
    static let conversationUsage = SQLiteMigration(
        version: 7,
        sql: """
            CREATE TABLE conversation_usage (
                conversation_id INTEGER PRIMARY KEY,
                replay_count INTEGER NOT NULL,
                last_replayed_at REAL NOT NULL
            );
            CREATE TRIGGER conversation_usage_follows_deletes AFTER DELETE ON conversations
            BEGIN DELETE FROM conversation_usage WHERE conversation_id = old.id; END;
            """)
}
