import Foundation

/// The HTTP version recordings were made over (`interaction_http_versions`), kept apart from the
/// interactions and read only by what exports them.
extension CassetteStore {
    static func storeHTTPVersion(_ version: RecordedHTTPVersion, interaction id: Int64, into connection: SQLiteConnection) throws {
        try connection.cachedStatement("INSERT OR REPLACE INTO interaction_http_versions (interaction_id, http_version) VALUES (?, ?)")
            .run(id, version.rawValue)
    }

    /// Sets `httpVersion` on those of `interactions` that have one stored; a store from before
    /// versions were kept has none.
    static func readHTTPVersions(into interactions: inout [Interaction], from connection: SQLiteConnection) throws {
        guard !interactions.isEmpty, try connection.tableNames().contains("interaction_http_versions") else { return }
        var versions: [Int64: RecordedHTTPVersion] = [:]
        try connection.prepare("SELECT interaction_id, http_version FROM interaction_http_versions").forEachRow { row in
            if let version = RecordedHTTPVersion(rawValue: row.text(at: 1)) { versions[row.int64(at: 0)] = version }
        }
        guard !versions.isEmpty else { return }
        for index in interactions.indices {
            if let id = interactions[index].id { interactions[index].httpVersion = versions[id] }
        }
    }
}
