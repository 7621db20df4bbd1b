import Foundation

/// Bringing stored keys in line with new matching rules or a new key format.
extension CassetteStore {
    /// Recomputes the stored keys of a cassette's recordings with `rules` and this version's key
    /// format (after either changed), numbering each key's recordings again in recorded order.
    /// One transaction: a crash leaves the old keys, and opening the cassette rekeys it again.
    /// Returns the number of recordings whose key changed.
    @discardableResult
    package func rekey(cassette: String, rules: MatchingRules) throws(CassetteStoreError) -> Int {
        try writing { connection in
            var changed = 0
            try connection.transaction {
                let select = try connection.prepare(
                    "SELECT \(InteractionColumn.selectList) FROM interactions WHERE cassette = ? ORDER BY recorded_at, sequence, id")
                try select.bind(cassette, at: 1)
                var reader = InteractionRowReader()
                let rows = try select.mapRows { row in
                    let interaction = try reader.read(row)
                    return (id: interaction.id ?? 0, old: interaction.key, new: RequestKey(recording: interaction, rules: rules).rawValue)
                }
                // Parked on negative sequences first: (cassette, key, sequence) stays unique meanwhile.
                try connection.cachedStatement("UPDATE interactions SET sequence = -1 - sequence WHERE cassette = ?").run(cassette)
                var nextSequence: [String: Int] = [:]
                let update = try connection.cachedStatement("UPDATE interactions SET request_key = ?, sequence = ? WHERE id = ?")
                for row in rows {
                    let sequence = nextSequence[row.new, default: 0]
                    nextSequence[row.new] = sequence + 1
                    try update.run(row.new, sequence, row.id)
                    if row.new != row.old { changed += 1 }
                }
            }
            return changed
        }
    }
}
