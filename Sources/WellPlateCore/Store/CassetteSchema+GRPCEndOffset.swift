/// Schema 10: when the upstream reset a gRPC call's stream, beside its heads, so a replay ends
/// the call as late as the upstream did rather than right after its last message. A column
/// readers select only when it is there: an older store opened read-only has no end offsets.
extension CassetteSchema {
    static let grpcEndOffset = SQLiteMigration(
        version: 10,
        sql: """
            ALTER TABLE grpc_calls ADD COLUMN end_offset_ms REAL;
            """)
}
