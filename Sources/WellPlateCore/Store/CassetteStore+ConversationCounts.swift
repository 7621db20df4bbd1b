import Foundation

/// A cassette's WebSocket conversations and gRPC calls in its summary, beside its HTTP
/// recordings: a cassette of gRPC calls only is not "0 recordings, 0 B, never recorded".
extension CassetteStore {
    /// `summaries` with each cassette's conversations and calls counted, their message payloads
    /// measured and their latest time taken into `lastRecordedAt`; a cassette that holds only
    /// conversations gets a line of its own. An older store without the tables is returned as it is.
    static func addingConversations(to summaries: [CassetteSummary], _ connection: SQLiteConnection) throws -> [CassetteSummary] {
        let tables = Set(try connection.tableNames())
        guard tables.contains("conversations") else { return summaries }
        // Calls are conversations with a row in `grpc_calls` (schema 8); an older store has none.
        let calls = tables.contains("grpc_calls") ? "count(g.conversation_id)" : "0"
        let callsJoin = tables.contains("grpc_calls") ? "LEFT JOIN grpc_calls AS g ON g.conversation_id = c.id" : ""
        let statement = try connection.prepare(
            """
            SELECT c.cassette, count(*) - \(calls), \(calls), coalesce(sum(m.bytes), 0), max(c.recorded_at)
            FROM conversations AS c \(callsJoin)
            LEFT JOIN (SELECT conversation_id, sum(length(payload)) AS bytes FROM conversation_messages GROUP BY conversation_id) AS m
                ON m.conversation_id = c.id
            GROUP BY c.cassette
            """)
        var result = summaries
        try statement.forEachRow { row in
            let name = row.text(at: 0)
            let index =
                result.firstIndex { $0.name == name }
                ?? {
                    result.append(CassetteSummary(name: name, upstream: nil, interactionCount: 0, bodyBytes: 0, lastRecordedAt: nil))
                    return result.count - 1
                }()
            result[index].conversationCount = row.int(at: 1)
            result[index].grpcCallCount = row.int(at: 2)
            result[index].messageBytes = row.int(at: 3)
            let latest = Date(timeIntervalSince1970: row.double(at: 4))
            result[index].lastRecordedAt = max(result[index].lastRecordedAt ?? latest, latest)
        }
        return result.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
}
