import Foundation

extension CassetteStore {
    /// Adds `counts` (replays per conversation id) to the stored usage of conversations, stamped
    /// `date`, in one transaction. Ids of conversations deleted meanwhile are ignored.
    package func addConversationUsage(_ counts: [Int64: Int], at date: Date = Date()) throws(CassetteStoreError) {
        guard !counts.isEmpty else { return }
        try writing { connection in
            try connection.transaction {
                let upsert = try connection.cachedStatement(
                    """
                    INSERT INTO conversation_usage (conversation_id, replay_count, last_replayed_at)
                    SELECT id, ?2, ?3 FROM conversations WHERE id = ?1
                    ON CONFLICT (conversation_id) DO UPDATE SET
                        replay_count = replay_count + excluded.replay_count,
                        last_replayed_at = max(last_replayed_at, excluded.last_replayed_at)
                    """)
                for (id, count) in counts.sorted(by: { $0.key < $1.key }) where count > 0 {
                    try upsert.run(id, count, date.timeIntervalSince1970)
                }
            }
        }
    }

    /// Usage by conversation id (one cassette, or all). Empty for a store whose replays were
    /// never tracked, including stores from before schema 7 opened read-only.
    package func conversationUsage(cassette: String?) throws(CassetteStoreError) -> [Int64: RecordingUsage] {
        try reading { connection in
            guard try connection.tableNames().contains("conversation_usage") else { return [:] }
            let statement = try connection.prepare(
                """
                SELECT u.conversation_id, u.replay_count, u.last_replayed_at FROM conversation_usage AS u
                JOIN conversations AS c ON c.id = u.conversation_id WHERE (?1 IS NULL OR c.cassette = ?1)
                """)
            try statement.bind(cassette, at: 1)
            var result: [Int64: RecordingUsage] = [:]
            for (id, usage) in try statement.mapRows({
                ($0.int64(at: 0), RecordingUsage(replayCount: $0.int(at: 1), lastReplayedAt: Date(timeIntervalSince1970: $0.double(at: 2))))
            }) {
                result[id] = usage
            }
            return result
        }
    }
}
