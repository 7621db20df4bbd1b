/// Schema 9: the HTTP version each recording's client spoke (`Interaction.httpVersion`), for
/// exports. A table of its own rather than a column: `response_body` stays the last column of
/// `interactions` (schema 4), and an older store opened read-only, or migrated, has no rows in it,
/// so its recordings read as of an unknown version.
extension CassetteSchema {
    static let httpVersions = SQLiteMigration(
        version: 9,
        sql: """
            CREATE TABLE interaction_http_versions (
                interaction_id INTEGER PRIMARY KEY,
                http_version TEXT NOT NULL
            );
            CREATE TRIGGER interaction_http_versions_follow_deletes AFTER DELETE ON interactions
            BEGIN DELETE FROM interaction_http_versions WHERE interaction_id = old.id; END;
            """)
}
