import Foundation

/// Reading: cassettes, recordings, listings and the replay index.
extension CassetteStore {
    public func cassette(named name: String) throws(CassetteStoreError) -> CassetteInfo? {
        try reading { connection in
            let statement = try connection.prepare("SELECT name, upstream, matching_rules, created_at FROM cassettes WHERE name = ?")
            try statement.bind(name, at: 1)
            return try statement.firstRow(CassetteInfo.init(row:))
        }
    }

    /// Every cassette with its interaction count, including cassettes known only from recordings.
    public func cassettes() throws(CassetteStoreError) -> [CassetteSummary] {
        try reading { connection in
            try connection.prepare("""
                SELECT names.name, c.upstream, count(i.id), coalesce(sum(length(i.response_body)), 0), max(i.recorded_at)
                FROM (SELECT name FROM cassettes UNION SELECT DISTINCT cassette FROM interactions) AS names
                LEFT JOIN cassettes AS c ON c.name = names.name
                LEFT JOIN interactions AS i ON i.cassette = names.name
                GROUP BY names.name ORDER BY names.name
                """).mapRows { row in
                CassetteSummary(
                    name: row.text(at: 0),
                    upstream: row.isNull(at: 1) ? nil : row.text(at: 1),
                    interactionCount: row.int(at: 2),
                    bodyBytes: row.int(at: 3),
                    lastRecordedAt: row.isNull(at: 4) ? nil : Date(timeIntervalSince1970: row.double(at: 4))
                )
            }
        }
    }

    /// All interactions of one cassette (or of every cassette), ordered by key and sequence.
    public func interactions(cassette: String?) throws(CassetteStoreError) -> [Interaction] {
        try reading { connection in
            let statement: SQLiteStatement
            if let cassette {
                statement = try connection.prepare("SELECT \(CassetteSchema.interactionColumns) FROM interactions WHERE cassette = ? ORDER BY request_key, sequence")
                try statement.bind(cassette, at: 1)
            } else {
                statement = try connection.prepare("SELECT \(CassetteSchema.interactionColumns) FROM interactions ORDER BY cassette, request_key, sequence")
            }
            var reader = InteractionRowReader()
            return try statement.mapRows { try reader.read($0) }
        }
    }

    /// Loads a cassette straight into a replay index, row by row, so the cassette is never held
    /// twice in memory. With `rekeyingWith`, keys are recomputed from the stored requests (the
    /// cassette was recorded with other matching rules).
    public func replayIndex(cassette: String, sequencePolicy: SequencePolicy, rekeyingWith rules: MatchingRules? = nil) throws(CassetteStoreError) -> ReplayIndex {
        try reading { connection in
            let statement = try connection.prepare("SELECT \(CassetteSchema.interactionColumns) FROM interactions WHERE cassette = ?")
            try statement.bind(cassette, at: 1)
            var builder = ReplayIndex.Builder()
            let count = try connection.prepare("SELECT count(*) FROM interactions WHERE cassette = ?")
            try count.bind(cassette, at: 1)
            builder.reserveCapacity(try count.firstRow { $0.int(at: 0) } ?? 0)
            var reader = InteractionRowReader(derivesContentLength: true, packsBodies: true)
            while try statement.step() {
                var interaction = try reader.read(statement)
                if let rules {
                    interaction.key = RequestKey(recording: interaction, rules: rules).rawValue
                }
                builder.add(interaction, headersShared: true)
            }
            statement.reset()
            // The mapping made the load fast; unmapped, the file's pages stop counting as ours.
            try connection.execute("PRAGMA mmap_size = 0")
            try connection.execute("PRAGMA mmap_size = 1073741824")
            return ReplayIndex(cassette: cassette, sequencePolicy: sequencePolicy, builder: builder)
        }
    }

    /// The recordings of one key, in sequence order.
    public func interactions(key: String, cassette: String?) throws(CassetteStoreError) -> [Interaction] {
        try reading { connection in
            let statement = try connection.prepare("""
                SELECT \(CassetteSchema.interactionColumns) FROM interactions
                WHERE request_key = ?1 AND (?2 IS NULL OR cassette = ?2) ORDER BY cassette, sequence
                """)
            try statement.bind(key, at: 1)
            try statement.bind(cassette, at: 2)
            var reader = InteractionRowReader()
            return try statement.mapRows { try reader.read($0) }
        }
    }

    /// A listing without bodies: what `cassette list` prints.
    public func summaries(cassette: String?) throws(CassetteStoreError) -> [InteractionSummary] {
        try reading { connection in
            let statement = try connection.prepare("""
                SELECT id, cassette, method, request_key, sequence, status, length(response_body), recorded_at, duration_ms
                FROM interactions WHERE (?1 IS NULL OR cassette = ?1) ORDER BY cassette, request_key, sequence
                """)
            try statement.bind(cassette, at: 1)
            return try statement.mapRows { row in
                InteractionSummary(
                    id: row.int64(at: 0), cassette: row.text(at: 1), method: row.text(at: 2), key: row.text(at: 3),
                    sequence: row.int(at: 4), statusCode: row.int(at: 5), bodySize: row.int(at: 6),
                    recordedAt: Date(timeIntervalSince1970: row.double(at: 7)), durationMilliseconds: row.double(at: 8)
                )
            }
        }
    }

    /// The highest row id so far (0 for an empty store).
    public func maxRowID() throws(CassetteStoreError) -> Int64 {
        try reading { connection in
            try connection.cachedStatement("SELECT coalesce(max(id), 0) FROM interactions").firstRow { $0.int64(at: 0) } ?? 0
        }
    }

    public func count(cassette: String?) throws(CassetteStoreError) -> Int {
        try reading { connection in
            let statement = try connection.prepare("SELECT count(*) FROM interactions WHERE (?1 IS NULL OR cassette = ?1)")
            try statement.bind(cassette, at: 1)
            return try statement.firstRow { $0.int(at: 0) } ?? 0
        }
    }

    /// Problems `PRAGMA integrity_check` finds; empty when the file is sound.
    public func integrityCheck() throws(CassetteStoreError) -> [String] {
        try reading { try $0.integrityCheck() }
    }
}
