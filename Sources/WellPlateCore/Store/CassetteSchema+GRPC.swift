/// Schema 8: gRPC calls, stored as conversations (a call's messages both ways, with offsets, its
/// end carrying `grpc-status` and `grpc-message`) plus what a WebSocket conversation lacks: the
/// response HEADERS and the trailers. And the protobuf descriptors (`FileDescriptorProto`s, from a
/// protoset or the upstream's reflection) that replay, the tools and the UI decode messages with.
/// Tables of their own: an older store opened read-only simply has neither.
extension CassetteSchema {
    static let grpc = SQLiteMigration(
        version: 8,
        sql: """
            CREATE TABLE grpc_calls (
                conversation_id INTEGER PRIMARY KEY,
                response_headers TEXT,
                trailers TEXT NOT NULL
            );
            CREATE TRIGGER grpc_calls_follow_deletes AFTER DELETE ON conversations
            BEGIN DELETE FROM grpc_calls WHERE conversation_id = old.id; END;
            CREATE TABLE proto_files (
                name TEXT PRIMARY KEY NOT NULL,
                descriptor BLOB NOT NULL,
                source TEXT NOT NULL,
                added_at REAL NOT NULL
            );
            """)
}
