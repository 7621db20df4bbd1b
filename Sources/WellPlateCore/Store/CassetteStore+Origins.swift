import Foundation

/// The hosts of a multi-host cassette, for `cassette replay` to lay out one listener per host.
extension CassetteStore {
    /// `scheme://host[:port]` of every host the cassette has recordings or WebSocket conversations
    /// from, in the order each was first recorded. Reads the URL columns alone, once, when a proxy starts.
    package func recordedOrigins(cassette: String) throws(CassetteStoreError) -> [String] {
        try reading { connection in
            // A host that only ever spoke WebSocket still gets its listener.
            let conversations =
                try connection.tableNames().contains("conversations")
                ? "UNION ALL SELECT url, recorded_at, 1, id FROM conversations WHERE cassette = ?1" : ""
            let statement = try connection.prepare(
                "SELECT url, recorded_at, 0, id FROM interactions WHERE cassette = ?1 \(conversations) ORDER BY 2, 3, 4")
            try statement.bind(cassette, at: 1)
            var seen = Set<String>()
            var origins: [String] = []
            try statement.forEachRow { row in
                guard let origin = URLNormalizer.normalize(target: row.text(at: 0)).origin, seen.insert(origin).inserted else { return }
                origins.append(origin)
            }
            return origins
        }
    }
}
