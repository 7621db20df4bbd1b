/// Schema 5: keyed hashes of secrets first seen in responses (`LearnedSecrets`), with the salt
/// each was made under. A table of its own: an older store opened read-only has learned nothing.
extension CassetteSchema {
    static let learnedSecrets = SQLiteMigration(
        version: 5,
        sql: """
            CREATE TABLE learned_secrets (
                salt BLOB NOT NULL,
                digest BLOB NOT NULL,
                PRIMARY KEY (salt, digest)
            ) WITHOUT ROWID;
            """)
}
