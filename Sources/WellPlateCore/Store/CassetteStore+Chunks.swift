import Foundation

/// Reading the pieces of streamed responses (`ResponseChunk`), kept apart from the interactions.
extension CassetteStore {
    /// The chunk lists of a cassette's streamed recordings, by interaction id. Empty for a store
    /// from before streaming (opened read-only, it has no such table).
    static func chunks(cassette: String, connection: SQLiteConnection) throws -> [Int64: [ResponseChunk]] {
        guard try connection.tableNames().contains("interaction_chunks") else { return [:] }
        let statement = try connection.prepare(
            """
            SELECT c.interaction_id, c.chunks FROM interaction_chunks c JOIN interactions i ON i.id = c.interaction_id
            WHERE i.cassette = ?
            """)
        try statement.bind(cassette, at: 1)
        var result: [Int64: [ResponseChunk]] = [:]
        try statement.forEachRow { row in
            if let chunks = ResponseChunk.decode(row.text(at: 1)) { result[row.int64(at: 0)] = chunks }
        }
        return result
    }

    /// The chunk list of one recording, `nil` when it was recorded whole.
    package func chunks(ofInteraction id: Int64) throws(CassetteStoreError) -> [ResponseChunk]? {
        try reading { connection in
            guard try connection.tableNames().contains("interaction_chunks") else { return nil }
            let statement = try connection.prepare("SELECT chunks FROM interaction_chunks WHERE interaction_id = ?")
            try statement.bind(id, at: 1)
            return try statement.firstValue { $0.text(at: 0) }.flatMap(ResponseChunk.decode)
        }
    }
}
