import Foundation

/// The HTTP version recordings were made over (`interaction_http_versions`), kept apart from the
/// interactions; only exports use it, and keying and replay ignore it.
extension CassetteStore {
    static func storeHTTPVersion(_ version: RecordedHTTPVersion, interaction id: Int64, into connection: SQLiteConnection) throws {
        try connection.cachedStatement("INSERT OR REPLACE INTO interaction_http_versions (interaction_id, http_version) VALUES (?, ?)")
            .run(id, version.rawValue)
    }

    /// Sets `httpVersion` on those of `interactions` that have one stored; a store from before
    /// versions were kept has none. Only the versions of the rows read (of `cassette`, or of `key`
    /// when given; nil is every one) are looked up, not the whole table: a replay loads one
    /// cassette of a store that may hold many.
    static func readHTTPVersions(
        into interactions: inout [Interaction], cassette: String?, key: String? = nil, from connection: SQLiteConnection
    ) throws {
        guard !interactions.isEmpty, try connection.tableNames().contains("interaction_http_versions") else { return }
        let statement = try connection.prepare(
            """
            SELECT v.interaction_id, v.http_version FROM interaction_http_versions v JOIN interactions i ON i.id = v.interaction_id
            WHERE (?1 IS NULL OR i.cassette = ?1) AND (?2 IS NULL OR i.request_key = ?2)
            """)
        try statement.bind(cassette, at: 1)
        try statement.bind(key, at: 2)
        var versions: [Int64: RecordedHTTPVersion] = [:]
        try statement.forEachRow { row in
            if let version = RecordedHTTPVersion(rawValue: row.text(at: 1)) { versions[row.int64(at: 0)] = version }
        }
        guard !versions.isEmpty else { return }
        for index in interactions.indices {
            if let id = interactions[index].id { interactions[index].httpVersion = versions[id] }
        }
    }
}
