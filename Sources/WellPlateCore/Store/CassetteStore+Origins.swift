import Foundation

/// The hosts of a multi-host cassette, for `cassette replay` to lay out one listener per host.
extension CassetteStore {
    /// `scheme://host[:port]` of every host the cassette has recordings from, in the order each
    /// was first recorded. Reads the URL column alone, once, when a proxy starts.
    package func recordedOrigins(cassette: String) throws(CassetteStoreError) -> [String] {
        try reading { connection in
            let statement = try connection.prepare("SELECT url FROM interactions WHERE cassette = ? ORDER BY recorded_at, id")
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
