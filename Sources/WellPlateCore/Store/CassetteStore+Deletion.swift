import Foundation

/// Removing recordings: by key, by cassette, by age.
extension CassetteStore {
    /// Deletes every recording of `key` (in one cassette, or all); returns how many went.
    @discardableResult
    package func delete(key: String, cassette: String?) throws(CassetteStoreError) -> Int {
        try writing { connection in
            try connection.transaction {
                try connection.prepare("DELETE FROM interactions WHERE request_key = ?1 AND (?2 IS NULL OR cassette = ?2)").run(key, cassette)
                let removed = connection.changes
                // A WebSocket handshake keys like the `GET` of its URL: its conversations go too.
                if try connection.tableNames().contains("conversations") {
                    try connection.prepare("DELETE FROM conversations WHERE request_key = ?1 AND (?2 IS NULL OR cassette = ?2)").run(key, cassette)
                    return removed + connection.changes
                }
                return removed
            }
        }
    }

    /// Deletes a whole cassette.
    @discardableResult
    package func delete(cassette: String) throws(CassetteStoreError) -> Int {
        try writing { connection in
            try connection.transaction {
                try connection.prepare("DELETE FROM interactions WHERE cassette = ?").run(cassette)
                var removed = connection.changes
                if try connection.tableNames().contains("conversations") {
                    try connection.prepare("DELETE FROM conversations WHERE cassette = ?").run(cassette)
                    removed += connection.changes
                }
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
                let removed = connection.changes
                if try connection.tableNames().contains("conversations") {
                    try connection.prepare("DELETE FROM conversations WHERE recorded_at < ?1 AND (?2 IS NULL OR cassette = ?2)")
                        .run(date.timeIntervalSince1970, cassette)
                    return removed + connection.changes
                }
                return removed
            }
        }
    }
}
