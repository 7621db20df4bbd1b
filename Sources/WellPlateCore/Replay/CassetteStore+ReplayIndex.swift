import Foundation

/// Loading for replay lives with the replay index, so the store knows nothing of replay.
extension CassetteStore {
    /// Loads a cassette straight into a replay index, row by row, so the cassette is never held
    /// twice in memory. With `rekeyingWith`, keys are recomputed from the stored requests (the
    /// cassette was recorded with other matching rules).
    /// `rules`: the rules the keys are (or are rekeyed to be) made with, for GraphQL hash-only
    /// aliases (`LoadedRecordings.addGraphQLAliases`).
    package func replayIndex(
        cassette: String, sequencePolicy: SequencePolicy, rekeyingWith rules: MatchingRules? = nil, rules current: MatchingRules? = nil
    ) throws(CassetteStoreError) -> ReplayIndex {
        try replayIndex(
            cassette: cassette, sequencePolicy: sequencePolicy, rekeyingWith: rules, rules: current, parallelFrom: Self.parallelLoadThreshold)
    }

    /// `parallelFrom`: the number of recordings from which a second thread reads half of them.
    func replayIndex(
        cassette: String, sequencePolicy: SequencePolicy, rekeyingWith rules: MatchingRules? = nil, rules current: MatchingRules? = nil,
        parallelFrom: Int
    ) throws(CassetteStoreError) -> ReplayIndex {
        let builder = try loadRecordings(cassette: cassette, rekeyingWith: rules, packsBodies: true, parallelFrom: parallelFrom) { _, _ in }
        var loaded = builder.build()
        if let aliasing = rules ?? current { loaded.addGraphQLAliases(rules: aliasing) }
        return ReplayIndex(cassette: cassette, sequencePolicy: sequencePolicy, loaded: loaded)
    }

    /// `replayIndex(cassette:sequencePolicy:rekeyingWith:)`, with every recording also turned
    /// into `preparer`'s answer: the answers come back at the index's positions, and each body is
    /// copied once, into the preparer's storage.
    package func replayIndex<Preparer: ReplayAnswerPreparer & Sendable>(
        cassette: String, sequencePolicy: SequencePolicy, rekeyingWith rules: MatchingRules? = nil, rules current: MatchingRules? = nil,
        preparing preparer: Preparer
    ) throws(CassetteStoreError) -> (index: ReplayIndex, answers: [Preparer.Answer]) {
        var preparer = preparer
        let builder = try loadRecordings(cassette: cassette, rekeyingWith: rules, packsBodies: false, parallelFrom: .max) { row, number in
            row.withBlobBytes(InteractionColumn.responseBody) { preparer.storeBody($0, number: number) }
        }
        var (loaded, answers) = builder.build(preparing: &preparer)
        // After preparing: the bodies are in the recordings again, to tell a PersistedQueryNotFound.
        if let aliasing = rules ?? current { loaded.addGraphQLAliases(rules: aliasing) }
        return (ReplayIndex(cassette: cassette, sequencePolicy: sequencePolicy, loaded: loaded), answers)
    }

    /// Cassettes of fewer recordings load on one thread: a second one would not pay for itself.
    static let parallelLoadThreshold = 100_000

    /// Every row of `cassette` into a builder. Without `packsBodies`, bodies are left in the row
    /// for `takeBody`, called with each row and its load number.
    private func loadRecordings(
        cassette: String, rekeyingWith rules: MatchingRules?, packsBodies: Bool, parallelFrom: Int, takeBody: (SQLiteStatement, Int) -> Void
    ) throws(CassetteStoreError) -> ReplayIndex.Builder {
        try reading { connection in
            let counting = try connection.prepare(
                "SELECT count(*), (SELECT min(id) FROM interactions), (SELECT max(id) FROM interactions) FROM interactions WHERE cassette = ?")
            try counting.bind(cassette, at: 1)
            let (count, firstRow, lastRow) = try counting.firstRow { ($0.int(at: 0), $0.int64(at: 1), $0.int64(at: 2)) } ?? (0, 0, 0)
            // A cassette that is most of the store is read in row order, page after page: through
            // the (cassette, key, sequence) index every row costs a B-tree search somewhere else
            // in the file, which made a million recordings take twice as long.
            let scan = Int64(count) * 2 >= lastRow ? " NOT INDEXED" : ""
            // The later half of a large cassette read in row order loads on a thread of its own
            // meanwhile. Not with a preparer: its bodies arrive in load order, copied once.
            // Streamed recordings' chunk times, by row id: few, so read apart and attached.
            let chunks = try Self.chunks(cassette: cassette, connection: connection)
            var later: RowRangeReader?
            var lastRead = Int64.max
            if packsBodies, !scan.isEmpty, count >= parallelFrom, ProcessInfo.processInfo.activeProcessorCount > 1 {
                lastRead = firstRow + (lastRow - firstRow) / 2
                later = RowRangeReader(
                    path: path, cassette: cassette, rules: rules, rows: (lastRead + 1)...max(lastRead + 1, lastRow), streamedRows: Set(chunks.keys))
                later?.start()
            }
            let statement = try connection.prepare("SELECT \(InteractionColumn.selectList) FROM interactions\(scan) WHERE cassette = ? AND id <= ?")
            try statement.bind(cassette, at: 1)
            try statement.bind(lastRead, at: 2)
            var builder = ReplayIndex.Builder()
            builder.reserveCapacity(count)
            var reader = InteractionRowReader(derivesContentLength: true, packsBodies: packsBodies, streamedRows: Set(chunks.keys))
            var number = 0
            while try statement.step() {
                var (interaction, block) = try reader.read(statement, cassette: cassette, leavingBody: !packsBodies)
                if !packsBodies { takeBody(statement, number) }
                if !chunks.isEmpty, let id = interaction.id { interaction.chunks = chunks[id] }
                if let rules {
                    interaction.key = RequestKey(recording: interaction, rules: rules).rawValue
                }
                // Even block numbers here, odd ones from `later`: each reader numbers its own.
                builder.add(interaction, responseHeaderBlock: block * 2)
                number += 1
            }
            statement.reset()
            for row in try later?.join() ?? [] {
                var interaction = row.interaction
                if !chunks.isEmpty, let id = interaction.id { interaction.chunks = chunks[id] }
                builder.add(interaction, responseHeaderBlock: row.responseHeaderBlock)
            }
            // The mapping made the load fast; unmapped, the file's pages stop counting as ours.
            try connection.execute("PRAGMA mmap_size = 0")
            try connection.execute("PRAGMA mmap_size = 1073741824")
            return builder
        }
    }
}
