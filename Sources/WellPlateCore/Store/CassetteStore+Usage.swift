import Foundation

/// How often replays served a recording, as remembered with `--track-usage`.
package struct RecordingUsage: Sendable, Equatable {
    package var replayCount: Int
    package var lastReplayedAt: Date

    package init(replayCount: Int, lastReplayedAt: Date) {
        self.replayCount = replayCount
        self.lastReplayedAt = lastReplayedAt
    }
}

/// Where replays are counted: recordings in `interaction_usage`, WebSocket conversations in
/// `conversation_usage` (schema 7), each row keyed by its parent's id.
enum UsageTable {
    case interactions, conversations

    /// Table, id column and parent table: constants, never input, so they go into the SQL text.
    var names: (usage: String, id: String, parent: String) {
        switch self {
        case .interactions: ("interaction_usage", "interaction_id", "interactions")
        case .conversations: ("conversation_usage", "conversation_id", "conversations")
        }
    }
}

extension CassetteStore {
    /// Adds `counts` (replays per recording id) to the stored usage, stamped `date`, in one
    /// transaction. Ids of recordings deleted meanwhile are ignored.
    package func addUsage(_ counts: [Int64: Int], at date: Date = Date()) throws(CassetteStoreError) {
        try addUsage(counts, at: date, in: .interactions)
    }

    /// Usage by recording id (one cassette, or all). Empty for a store whose replays were never
    /// tracked, including files of schema 1 opened read-only, which have no usage table.
    package func usage(cassette: String?) throws(CassetteStoreError) -> [Int64: RecordingUsage] {
        try usage(cassette: cassette, in: .interactions)
    }

    func addUsage(_ counts: [Int64: Int], at date: Date, in table: UsageTable) throws(CassetteStoreError) {
        guard !counts.isEmpty else { return }
        let names = table.names
        try writing { connection in
            try connection.transaction {
                let upsert = try connection.cachedStatement(
                    """
                    INSERT INTO \(names.usage) (\(names.id), replay_count, last_replayed_at)
                    SELECT id, ?2, ?3 FROM \(names.parent) WHERE id = ?1
                    ON CONFLICT (\(names.id)) DO UPDATE SET
                        replay_count = replay_count + excluded.replay_count,
                        last_replayed_at = max(last_replayed_at, excluded.last_replayed_at)
                    """)
                for (id, count) in counts.sorted(by: { $0.key < $1.key }) where count > 0 {
                    try upsert.run(id, count, date.timeIntervalSince1970)
                }
            }
        }
    }

    func usage(cassette: String?, in table: UsageTable) throws(CassetteStoreError) -> [Int64: RecordingUsage] {
        let names = table.names
        return try reading { connection in
            guard try connection.tableNames().contains(names.usage) else { return [:] }
            let statement = try connection.prepare(
                """
                SELECT u.\(names.id), u.replay_count, u.last_replayed_at FROM \(names.usage) AS u
                JOIN \(names.parent) AS p ON p.id = u.\(names.id) WHERE (?1 IS NULL OR p.cassette = ?1)
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

    /// Every cassette's saved metadata, by name.
    package func cassetteInfos() throws(CassetteStoreError) -> [CassetteInfo] {
        try reading { connection in
            try connection.prepare("SELECT name, upstream, matching_rules, created_at FROM cassettes ORDER BY name").mapRows(CassetteInfo.init(row:))
        }
    }
}
