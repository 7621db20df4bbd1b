/// Schema 6: WebSocket conversations beside the interactions, keyed like them, and their
/// messages. Tables of their own: an older store opened read-only simply has no conversations.
extension CassetteSchema {
    static let conversations = SQLiteMigration(
        version: 6,
        sql: """
            CREATE TABLE conversations (
                id INTEGER PRIMARY KEY,
                cassette TEXT NOT NULL,
                url TEXT NOT NULL,
                request_key TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                request_headers TEXT NOT NULL,
                subprotocol TEXT,
                extensions TEXT,
                recorded_at REAL NOT NULL,
                end_kind TEXT NOT NULL,
                end_by TEXT,
                close_code INTEGER,
                close_reason TEXT,
                UNIQUE (cassette, request_key, sequence)
            );
            CREATE TABLE conversation_messages (
                conversation_id INTEGER NOT NULL,
                position INTEGER NOT NULL,
                direction TEXT NOT NULL,
                kind TEXT NOT NULL,
                payload BLOB NOT NULL,
                fragments TEXT NOT NULL,
                offset_ms REAL NOT NULL,
                PRIMARY KEY (conversation_id, position)
            ) WITHOUT ROWID;
            CREATE TRIGGER conversation_messages_follow_deletes AFTER DELETE ON conversations
            BEGIN DELETE FROM conversation_messages WHERE conversation_id = old.id; END;
            """)
}
