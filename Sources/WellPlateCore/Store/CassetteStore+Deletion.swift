import Foundation

/// How many recordings a deletion removed: HTTP interactions and WebSocket conversations
/// (each conversation with its messages).
package struct RemovedRecordings: Sendable, Equatable {
    package var interactions: Int
    package var conversations: Int

    package init(interactions: Int = 0, conversations: Int = 0) {
        self.interactions = interactions
        self.conversations = conversations
    }

    package var total: Int { interactions + conversations }
}

/// Removing recordings: by key, by cassette, by age. Conversations follow the same selection as
/// interactions: a WebSocket handshake keys like the `GET` of its URL, so deleting a key removes
/// its conversations too, and their messages go with them (a trigger of schema 6).
extension CassetteStore {
    /// Deletes every recording of `key` (in one cassette, or all), conversations included.
    @discardableResult
    package func delete(key: String, cassette: String?) throws(CassetteStoreError) -> RemovedRecordings {
        try writing { connection in
            try connection.transaction {
                try connection.prepare("DELETE FROM interactions WHERE request_key = ?1 AND (?2 IS NULL OR cassette = ?2)").run(key, cassette)
                var removed = RemovedRecordings(interactions: connection.changes)
                if try connection.tableNames().contains("conversations") {
                    try connection.prepare("DELETE FROM conversations WHERE request_key = ?1 AND (?2 IS NULL OR cassette = ?2)").run(key, cassette)
                    removed.conversations = connection.changes
                }
                return removed
            }
        }
    }

    /// Deletes a whole cassette, conversations included.
    @discardableResult
    package func delete(cassette: String) throws(CassetteStoreError) -> RemovedRecordings {
        try writing { connection in
            try connection.transaction {
                try connection.prepare("DELETE FROM interactions WHERE cassette = ?").run(cassette)
                var removed = RemovedRecordings(interactions: connection.changes)
                if try connection.tableNames().contains("conversations") {
                    try connection.prepare("DELETE FROM conversations WHERE cassette = ?").run(cassette)
                    removed.conversations = connection.changes
                }
                try connection.prepare("DELETE FROM cassettes WHERE name = ?").run(cassette)
                return removed
            }
        }
    }

    /// Deletes recordings (interactions and conversations) made before `date`.
    @discardableResult
    package func prune(recordedBefore date: Date, cassette: String?) throws(CassetteStoreError) -> RemovedRecordings {
        try writing { connection in
            try connection.transaction {
                try connection.prepare("DELETE FROM interactions WHERE recorded_at < ?1 AND (?2 IS NULL OR cassette = ?2)")
                    .run(date.timeIntervalSince1970, cassette)
                var removed = RemovedRecordings(interactions: connection.changes)
                if try connection.tableNames().contains("conversations") {
                    try connection.prepare("DELETE FROM conversations WHERE recorded_at < ?1 AND (?2 IS NULL OR cassette = ?2)")
                        .run(date.timeIntervalSince1970, cassette)
                    removed.conversations = connection.changes
                }
                return removed
            }
        }
    }
}
