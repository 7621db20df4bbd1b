import Foundation

/// How recordings brought in from elsewhere (a HAR file) meet the ones a cassette already has.
package enum ImportMode: String, Sendable, CaseIterable {
    /// Import only requests whose key has no recording yet; known keys keep theirs.
    case missing
    /// Replace the recordings of every imported key with the imported ones.
    case all
}

extension CassetteStore {
    /// Stores `interactions` (all of one cassette, in file order) in one transaction; each key's
    /// recordings become a sequence in the order given. Returns the keys left out because the
    /// cassette already had them (`missing`), or replaced (`all`). All or nothing. `progress`
    /// hears of each interaction stored or left out.
    @discardableResult
    package func importInteractions(
        _ interactions: [Interaction], mode: ImportMode, progress: ProgressHandler? = nil
    ) throws(CassetteStoreError) -> Set<String> {
        try writing { connection in
            var existing = Set<String>()
            try connection.transaction {
                let known = try connection.cachedStatement("SELECT 1 FROM interactions WHERE cassette = ? AND request_key = ? LIMIT 1")
                for key in Set(interactions.map { "\($0.cassette)\u{0}\($0.key)" }) {
                    let parts = key.split(separator: "\u{0}", maxSplits: 1).map(String.init)
                    known.reset()
                    try known.bind(parts[0], parts[1])
                    if try known.step() { existing.insert(parts[1]) }
                    known.reset()
                }
                if mode == .all {
                    let delete = try connection.cachedStatement("DELETE FROM interactions WHERE cassette = ? AND request_key = ?")
                    for interaction in interactions where existing.contains(interaction.key) {
                        try delete.run(interaction.cassette, interaction.key)
                    }
                }
                for (index, interaction) in interactions.enumerated() {
                    if mode == .all || !existing.contains(interaction.key) {
                        try Self.insert(interaction, into: connection)
                    }
                    progress?(index + 1, interactions.count)
                }
            }
            return existing
        }
    }
}
