import Foundation

/// What a cassette remembers about how it was recorded.
public struct CassetteInfo: Sendable, Equatable {
    public var name: String
    /// The upstream base URL the proxy forwarded to, if it was recorded through the proxy.
    public var upstream: String?
    /// The rules keys were computed with; replay uses the same ones.
    public var matchingRules: MatchingRules
    public var createdAt: Date

    public init(name: String, upstream: String? = nil, matchingRules: MatchingRules = .default, createdAt: Date = Date()) {
        self.name = name
        self.upstream = upstream
        self.matchingRules = matchingRules
        self.createdAt = createdAt
    }

    init(row: SQLiteStatement) {
        name = row.text(at: 0)
        upstream = row.isNull(at: 1) ? nil : row.text(at: 1)
        let rulesText = row.isNull(at: 2) ? nil : row.text(at: 2)
        matchingRules = rulesText.flatMap { try? JSONDecoder().decode(MatchingRules.self, from: Data($0.utf8)) } ?? .default
        createdAt = Date(timeIntervalSince1970: row.double(at: 3))
    }
}

/// One line of `cassette list --cassettes`.
public struct CassetteSummary: Sendable, Equatable {
    public var name: String
    public var upstream: String?
    public var interactionCount: Int
    public var bodyBytes: Int
    public var lastRecordedAt: Date?
}

/// One line of `cassette list`: an interaction without its bodies.
public struct InteractionSummary: Sendable, Equatable {
    public var id: Int64
    public var cassette: String
    public var method: String
    public var key: String
    public var sequence: Int
    public var statusCode: Int
    public var bodySize: Int
    public var recordedAt: Date
    public var durationMilliseconds: Double
}

extension Interaction {
    /// Reads a row selected with `CassetteSchema.interactionColumns`.
    init(row: SQLiteStatement) throws {
        let methodText = row.text(at: 2)
        guard let method = HTTPMethod(rawValue: methodText) else {
            throw SQLiteError.library(.mismatch, "interaction \(row.int64(at: 0)) has an unknown method '\(methodText)'", path: "")
        }
        self.init(
            id: row.int64(at: 0),
            cassette: row.text(at: 1),
            method: method,
            url: row.text(at: 3),
            key: row.text(at: 4),
            sequence: row.int(at: 5),
            requestHeaders: HeaderLines.decode(row.text(at: 6)),
            requestBody: row.isNull(at: 7) ? nil : row.blob(at: 7),
            statusCode: row.int(at: 8),
            responseHeaders: HeaderLines.decode(row.text(at: 9)),
            responseBody: row.blob(at: 10),
            contentEncoding: row.isNull(at: 11) ? nil : row.text(at: 11),
            recordedAt: Date(timeIntervalSince1970: row.double(at: 12)),
            duration: .microseconds(Int64((row.double(at: 13) * 1000).rounded()))
        )
    }
}
