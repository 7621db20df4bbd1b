import Foundation

/// What a store can say of a cassette's unused keys once replays were tracked (`--track-usage`):
/// the figures the serving proxy's summary gives, counted from the saved usage. As the proxy
/// counts them, a key is used once any of its recordings answered, whichever sequence did.
extension CassetteStore {
    /// `cassette`'s unused recording keys and gRPC methods (`nil` for a cassette without calls);
    /// `nil` when no replay of it was tracked, and nothing can know. A tracked replay saves the
    /// usage of recordings and of calls at once: either tells.
    package func unusedKeys(cassette: String) throws(CassetteStoreError) -> (recordings: Int, grpcMethods: Int?)? {
        let tracked = try !usage(cassette: cassette).isEmpty
        let callsTracked = try !conversationUsage(cassette: cassette).isEmpty
        guard tracked || callsTracked else { return nil }
        let recordings = try unusedRecordingKeyCount(cassette: cassette)
        return (recordings, try unusedGRPCMethodCount(cassette: cassette))
    }

    /// The request keys of `cassette`'s recordings none of whose recordings a tracked replay served.
    package func unusedRecordingKeyCount(cassette: String) throws(CassetteStoreError) -> Int {
        try reading { connection in
            guard try connection.tableNames().contains("interaction_usage") else { return 0 }
            let statement = try connection.prepare(
                """
                SELECT count(*) FROM (
                    SELECT i.request_key FROM interactions AS i
                    LEFT JOIN interaction_usage AS u ON u.interaction_id = i.id
                    WHERE i.cassette = ?1 GROUP BY i.request_key HAVING max(u.interaction_id IS NOT NULL) = 0)
                """)
            try statement.bind(cassette, at: 1)
            return try statement.firstRow { $0.int(at: 0) } ?? 0
        }
    }

    /// The gRPC methods of `cassette` (`POST /package.Service/Method`) none of whose calls a
    /// tracked replay answered; `nil` for a cassette without calls, or a store from before gRPC.
    package func unusedGRPCMethodCount(cassette: String) throws(CassetteStoreError) -> Int? {
        try reading { connection in
            let tables = try connection.tableNames()
            guard tables.contains("grpc_calls"), tables.contains("conversation_usage") else { return nil }
            let statement = try connection.prepare(
                """
                SELECT count(*), coalesce(sum(used = 0), 0) FROM (
                    SELECT max(u.conversation_id IS NOT NULL) AS used FROM conversations AS c
                    JOIN grpc_calls AS g ON g.conversation_id = c.id
                    LEFT JOIN conversation_usage AS u ON u.conversation_id = c.id
                    WHERE c.cassette = ?1 GROUP BY c.request_key)
                """)
            try statement.bind(cassette, at: 1)
            guard let (methods, unused) = try statement.firstRow({ ($0.int(at: 0), $0.int(at: 1)) }), methods > 0 else { return nil }
            return unused
        }
    }
}
