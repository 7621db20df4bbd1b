import Foundation

/// Loading for replay lives with the replay index, so the store knows nothing of replay.
extension CassetteStore {
    /// Loads a cassette straight into a replay index, row by row, so the cassette is never held
    /// twice in memory. With `rekeyingWith`, keys are recomputed from the stored requests (the
    /// cassette was recorded with other matching rules).
    public func replayIndex(cassette: String, sequencePolicy: SequencePolicy, rekeyingWith rules: MatchingRules? = nil) throws(CassetteStoreError) -> ReplayIndex {
        try reading { connection in
            let statement = try connection.prepare("SELECT \(InteractionColumn.selectList) FROM interactions WHERE cassette = ?")
            try statement.bind(cassette, at: 1)
            var builder = ReplayIndex.Builder()
            let count = try connection.prepare("SELECT count(*) FROM interactions WHERE cassette = ?")
            try count.bind(cassette, at: 1)
            builder.reserveCapacity(try count.firstRow { $0.int(at: 0) } ?? 0)
            var reader = InteractionRowReader(derivesContentLength: true, packsBodies: true)
            let chunks = try Self.chunks(cassette: cassette, connection: connection)
            while try statement.step() {
                var interaction = try reader.read(statement)
                if !chunks.isEmpty, let id = interaction.id { interaction.chunks = chunks[id] }
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
}
