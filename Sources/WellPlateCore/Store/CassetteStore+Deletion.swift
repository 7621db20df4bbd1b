import Foundation

/// Removing recordings: by key, by cassette, by age.
extension CassetteStore {
    /// Deletes every recording of `key` (in one cassette, or all); returns how many went.
    @discardableResult
    package func delete(key: String, cassette: String?) throws(CassetteStoreError) -> Int {
        try writing { connection in
            try connection.transaction {
                try connection.prepare("DELETE FROM interactions WHERE request_key = ?1 AND (?2 IS NULL OR cassette = ?2)").run(key, cassette)
                return connection.changes
            }
        }
    }

    /// Deletes a whole cassette.
    @discardableResult
    package func delete(cassette: String) throws(CassetteStoreError) -> Int {
        try writing { connection in
            try connection.transaction {
                try connection.prepare("DELETE FROM interactions WHERE cassette = ?").run(cassette)
                let removed = connection.changes
                try connection.prepare("DELETE FROM cassettes WHERE name = ?").run(cassette)
                return removed
            }
        }
    }

    /// Deletes recordings made before `date`; returns how many went.
    @discardableResult
    package func prune(recordedBefore date: Date, cassette: String?) throws(CassetteStoreError) -> Int {
        try writing { connection in
            try connection.transaction {
                try connection.prepare("DELETE FROM interactions WHERE recorded_at < ?1 AND (?2 IS NULL OR cassette = ?2)")
                    .run(date.timeIntervalSince1970, cassette)
                return connection.changes
            }
        }
    }
}
