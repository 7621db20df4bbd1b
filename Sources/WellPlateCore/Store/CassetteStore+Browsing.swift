import Foundation

/// One page of recordings as the web UI's list asks for it: narrowed by method, status, host, path
/// and body text, in row order, with the count of every row that matches.
package struct InteractionBrowseQuery: Sendable, Equatable {
    package var cassette: String?
    package var method: String?
    package var status: Int?
    /// Matched against the URL's authority (`://HOST`), so `api.example` finds `https://api.example.com/...`.
    package var host: String?
    /// Any part of the URL's path and query.
    package var path: String?
    /// Bytes either body contains.
    package var text: String?
    /// Part of a GraphQL operation's label as its key names it (`query GetUser`, case ignored), so
    /// `GetUser`, `getuser` and `mutation` all work; rows that are not GraphQL never match.
    package var operation: String?
    package var offset = 0
    package var limit = 100

    package init(cassette: String? = nil) {
        self.cassette = cassette
    }
}

/// A row of the UI's list: a recording without its bodies.
package struct BrowsedInteraction: Sendable, Equatable {
    package var id: Int64
    package var cassette: String
    package var method: String
    package var url: String
    package var statusCode: Int
    package var bodySize: Int
    package var recordedAt: Date
    package var durationMilliseconds: Double
    /// `query GetUser` for a GraphQL request (from its key), else `nil`.
    package var operation: String?
}

extension CassetteStore {
    /// The rows `query` asks for and how many match in all.
    package func browse(_ query: InteractionBrowseQuery) throws(CassetteStoreError) -> (rows: [BrowsedInteraction], total: Int) {
        try reading { connection in
            let filter = """
                WHERE (?1 IS NULL OR cassette = ?1) AND (?2 IS NULL OR method = ?2) AND (?3 IS NULL OR status = ?3)
                AND (?4 IS NULL OR instr(lower(url), '://' || lower(?4)) > 0)
                AND (?5 IS NULL OR instr(url, ?5) > 0)
                AND (?6 IS NULL OR instr(response_body, CAST(?6 AS BLOB)) > 0 OR instr(coalesce(request_body, X''), CAST(?6 AS BLOB)) > 0)
                AND (?7 IS NULL OR \(Self.operationMatch))
                """
            let values: [(any SQLiteBindable)?] = [
                query.cassette, query.method?.uppercased(), query.status, query.host, query.path, query.text, query.operation,
            ]
            let counting = try connection.prepare("SELECT count(*) FROM interactions \(filter)")
            try counting.bind(values: values)
            let total = try counting.firstRow { $0.int(at: 0) } ?? 0
            let listing = try connection.prepare(
                """
                SELECT id, cassette, method, url, status, length(response_body), recorded_at, duration_ms, request_key
                FROM interactions \(filter) ORDER BY id LIMIT ?8 OFFSET ?9
                """)
            try listing.bind(values: values + [max(1, min(query.limit, 1000)), max(0, query.offset)])
            let rows = try listing.mapRows { row in
                BrowsedInteraction(
                    id: row.int64(at: 0), cassette: row.text(at: 1), method: row.text(at: 2), url: row.text(at: 3), statusCode: row.int(at: 4),
                    bodySize: row.int(at: 5), recordedAt: Date(timeIntervalSince1970: row.double(at: 6)), durationMilliseconds: row.double(at: 7),
                    operation: GraphQLKeyPart(inKey: row.text(at: 8))?.label)
            }
            return (rows, total)
        }
    }

    /// SQL true when the key's operation part (` gql:query:GetUser` up to the next space) read as
    /// its label (`query GetUser`) contains `?7`, case ignored: what `GraphQLKeyPart(inKey:)`
    /// reads, in SQL so that the filter counts and pages in the store like the others.
    private static let operationMatch: String = {
        let rest = "substr(request_key, instr(request_key, ' \(GraphQLKeyPart.prefix)') + \(GraphQLKeyPart.prefix.count + 1))"
        let part = "substr(\(rest), 1, instr(\(rest) || ' ', ' ') - 1)"
        return "(instr(request_key, ' \(GraphQLKeyPart.prefix)') > 0 AND instr(lower(replace(\(part), ':', ' ')), lower(?7)) > 0)"
    }()

    /// The recording with row id `id`, bodies included; `nil` when there is none.
    package func interaction(id: Int64) throws(CassetteStoreError) -> Interaction? {
        try reading { connection in
            let statement = try connection.prepare("SELECT \(InteractionColumn.selectList) FROM interactions WHERE id = ?")
            try statement.bind(id, at: 1)
            var reader = InteractionRowReader()
            return try statement.firstRow { try reader.read($0) }
        }
    }
}
