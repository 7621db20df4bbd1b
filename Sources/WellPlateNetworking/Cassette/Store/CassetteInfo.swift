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
