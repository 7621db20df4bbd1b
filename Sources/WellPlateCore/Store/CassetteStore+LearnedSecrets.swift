import Foundation

extension CassetteStore {
    /// The secrets this store has learned from responses (keyed hashes only).
    package func learnedSecrets() throws(CassetteStoreError) -> LearnedSecrets {
        LearnedSecrets(stored: try learnedSecretDigests())
    }

    /// The stored digests with their salts, in the order they were first stored.
    package func learnedSecretDigests() throws(CassetteStoreError) -> [LearnedSecrets.StoredDigest] {
        try reading { connection in
            guard try connection.tableNames().contains("learned_secrets") else { return [] }
            return try connection.prepare("SELECT salt, digest FROM learned_secrets").mapRows {
                LearnedSecrets.StoredDigest(salt: [UInt8]($0.blob(at: 0)), digest: [UInt8]($0.blob(at: 1)))
            }
        }
    }

    /// Stores newly learned digests, in their own transaction, before the recording that taught
    /// them: a value the store knows is scrubbed from every later request.
    package func saveLearnedSecrets(_ digests: [LearnedSecrets.StoredDigest]) throws(CassetteStoreError) {
        guard !digests.isEmpty else { return }
        try writing { connection in
            try connection.transaction {
                let insert = try connection.cachedStatement("INSERT OR IGNORE INTO learned_secrets (salt, digest) VALUES (?, ?)")
                for entry in digests { try insert.run(entry.salt, entry.digest) }
            }
        }
    }
}
