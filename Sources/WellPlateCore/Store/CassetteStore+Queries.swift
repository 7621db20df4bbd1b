import Foundation

/// Reading: cassettes, recordings, listings and the replay index.
extension CassetteStore {
    package func cassette(named name: String) throws(CassetteStoreError) -> CassetteInfo? {
        try reading { connection in
            let statement = try connection.prepare("SELECT \(CassetteInfoColumn.selectList) FROM cassettes WHERE name = ?")
            try statement.bind(name, at: 1)
            return try statement.firstRow(CassetteInfo.init(row:))
        }
    }

    /// Every cassette with its interaction count, including cassettes known only from recordings,
    /// and its WebSocket conversations and gRPC calls (`CassetteStore+ConversationCounts.swift`).
    package func cassettes() throws(CassetteStoreError) -> [CassetteSummary] {
        try reading { connection in
            let summaries = try connection.prepare(
                """
                SELECT \(CassetteSummaryColumn.selectList)
                FROM (SELECT name FROM cassettes UNION SELECT DISTINCT cassette FROM interactions) AS names
                LEFT JOIN cassettes AS c ON c.name = names.name
                LEFT JOIN interactions AS i ON i.cassette = names.name
                GROUP BY names.name ORDER BY names.name
                """
            ).mapRows { row in
                typealias Column = CassetteSummaryColumn
                return CassetteSummary(
                    name: row.text(Column.name),
                    upstream: row.optionalText(Column.upstream),
                    interactionCount: row.int(Column.interactionCount),
                    bodyBytes: row.int(Column.bodyBytes),
                    lastRecordedAt: row.isNull(Column.lastRecordedAt) ? nil : row.date(Column.lastRecordedAt)
                )
            }
            return try Self.addingConversations(to: summaries, connection)
        }
    }

    /// All interactions of one cassette (or of every cassette), ordered by key and sequence;
    /// `progress` hears of each row read, against the count taken first.
    package func interactions(cassette: String?, progress: ProgressHandler? = nil) throws(CassetteStoreError) -> [Interaction] {
        let total = progress == nil ? 0 : try count(cassette: cassette)
        return try reading { connection in
            let statement = try Self.interactionsStatement(connection, cassette: cassette)
            var reader = InteractionRowReader()
            var rows: [Interaction] = []
            rows.reserveCapacity(total)
            progress?(0, total)
            try statement.forEachRow { row in
                rows.append(try reader.read(row))
                progress?(rows.count, total)
            }
            try Self.readHTTPVersions(into: &rows, cassette: cassette, from: connection)
            return rows
        }
    }

    /// Selects the interactions of one cassette (or of every cassette), ordered by key and sequence.
    static func interactionsStatement(_ connection: SQLiteConnection, cassette: String?) throws(SQLiteError) -> SQLiteStatement {
        guard let cassette else {
            return try connection.prepare("SELECT \(InteractionColumn.selectList) FROM interactions ORDER BY cassette, request_key, sequence")
        }
        let statement = try connection.prepare("SELECT \(InteractionColumn.selectList) FROM interactions WHERE cassette = ? ORDER BY request_key, sequence")
        try statement.bind(cassette, at: 1)
        return statement
    }

    /// The recordings of one key, in sequence order.
    package func interactions(key: String, cassette: String?) throws(CassetteStoreError) -> [Interaction] {
        try reading { connection in
            let statement = try connection.prepare(
                """
                SELECT \(InteractionColumn.selectList) FROM interactions
                WHERE request_key = ?1 AND (?2 IS NULL OR cassette = ?2) ORDER BY cassette, sequence
                """)
            try statement.bind(key, at: 1)
            try statement.bind(cassette, at: 2)
            var reader = InteractionRowReader()
            var rows = try statement.mapRows { try reader.read($0) }
            try Self.readHTTPVersions(into: &rows, cassette: cassette, key: key, from: connection)
            return rows
        }
    }

    /// A listing without bodies: what `cassette list` prints.
    package func summaries(cassette: String?) throws(CassetteStoreError) -> [InteractionSummary] {
        try reading { connection in
            let statement = try connection.prepare(
                """
                SELECT \(InteractionSummaryColumn.selectList)
                FROM interactions WHERE (?1 IS NULL OR cassette = ?1) ORDER BY cassette, request_key, sequence
                """)
            try statement.bind(cassette, at: 1)
            return try statement.mapRows { row in
                typealias Column = InteractionSummaryColumn
                return InteractionSummary(
                    id: row.int64(Column.id), cassette: row.text(Column.cassette), method: row.text(Column.method),
                    key: row.text(Column.requestKey), sequence: row.int(Column.sequence), statusCode: row.int(Column.status),
                    bodySize: row.int(Column.bodySize), recordedAt: row.date(Column.recordedAt),
                    durationMilliseconds: row.double(Column.durationMs)
                )
            }
        }
    }

    /// The highest row id so far (0 for an empty store).
    package func maxRowID() throws(CassetteStoreError) -> Int64 {
        try reading { connection in
            try connection.cachedStatement("SELECT coalesce(max(id), 0) FROM interactions").firstRow { $0.int64(at: 0) } ?? 0
        }
    }

    package func count(cassette: String?) throws(CassetteStoreError) -> Int {
        try reading { connection in
            let statement = try connection.prepare("SELECT count(*) FROM interactions WHERE (?1 IS NULL OR cassette = ?1)")
            try statement.bind(cassette, at: 1)
            return try statement.firstRow { $0.int(at: 0) } ?? 0
        }
    }

    /// Problems `PRAGMA integrity_check` finds; empty when the file is sound.
    package func integrityCheck() throws(CassetteStoreError) -> [String] {
        try reading { try $0.integrityCheck() }
    }
}

/// `cassettes()`: every cassette name joined with its recordings (`names`, `c`, `i`).
private enum CassetteSummaryColumn: Int, SQLiteColumn {
    case name, upstream, interactionCount, bodyBytes, lastRecordedAt

    var expression: String {
        switch self {
        case .name: "names.name"
        case .upstream: "c.upstream"
        case .interactionCount: "count(i.id)"
        case .bodyBytes: "coalesce(sum(length(i.response_body)), 0)"
        case .lastRecordedAt: "max(i.recorded_at)"
        }
    }
}

/// `summaries(cassette:)`: an interaction without its bodies.
private enum InteractionSummaryColumn: Int, SQLiteColumn {
    case id, cassette, method, requestKey, sequence, status, bodySize, recordedAt, durationMs

    var expression: String {
        switch self {
        case .bodySize: "length(response_body)"
        default: defaultExpression
        }
    }
}
