import Foundation

/// What a cassette remembers about how it was recorded.
package struct CassetteInfo: Sendable, Equatable {
    package var name: String
    /// The upstream base URL the proxy forwarded to, if it was recorded through the proxy.
    package var upstream: String?
    /// The rules keys were computed with; replay uses the same ones.
    package var matchingRules: MatchingRules
    /// The `RequestKey.formatVersion` the stored keys were computed with; keys of another
    /// version are recomputed when the cassette is opened.
    package var keyFormat: Int
    package var createdAt: Date

    package init(
        name: String, upstream: String? = nil, matchingRules: MatchingRules = .default, keyFormat: Int = RequestKey.formatVersion, createdAt: Date = Date()
    ) {
        self.name = name
        self.upstream = upstream
        self.matchingRules = matchingRules
        self.keyFormat = keyFormat
        self.createdAt = createdAt
    }

    /// Reads a row selected with `CassetteInfoColumn.selectList`.
    init(row: SQLiteStatement) {
        name = row.text(CassetteInfoColumn.name)
        upstream = row.optionalText(CassetteInfoColumn.upstream)
        let rulesData = row.optionalText(CassetteInfoColumn.matchingRules).map { Data($0.utf8) }
        matchingRules = rulesData.flatMap { try? JSONDecoder().decode(MatchingRules.self, from: $0) } ?? .default
        // Stores written before the format was remembered hold version 1 keys.
        keyFormat = rulesData.flatMap { try? JSONDecoder().decode(StoredRules.KeyFormat.self, from: $0).keyFormat } ?? 1
        createdAt = row.date(CassetteInfoColumn.createdAt)
    }

    /// Whether keys stored under this info must be recomputed to match requests keyed with `rules`
    /// by this version of the code.
    package func needsRekeying(for rules: MatchingRules) -> Bool {
        matchingRules != rules || keyFormat != RequestKey.formatVersion
    }

    /// The `matching_rules` column: the rules' JSON with the key format beside them, so older
    /// readers still decode the rules.
    var storedRules: String {
        get throws {
            String(decoding: try JSONEncoder().encode(StoredRules(rules: matchingRules, keyFormat: keyFormat)), as: UTF8.self)
        }
    }
}

private struct StoredRules: Encodable {
    struct KeyFormat: Decodable {
        let keyFormat: Int?
    }

    private enum CodingKeys: String, CodingKey {
        case keyFormat
    }

    let rules: MatchingRules
    let keyFormat: Int

    func encode(to encoder: any Encoder) throws {
        try rules.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(keyFormat, forKey: .keyFormat)
    }
}

/// One line of `cassette list --cassettes`, and of the UI's Cassettes view.
package struct CassetteSummary: Sendable, Equatable {
    package var name: String
    package var upstream: String?
    /// HTTP recordings.
    package var interactionCount: Int
    /// The HTTP recordings' response bodies.
    package var bodyBytes: Int
    /// The latest recording, WebSocket conversation or gRPC call.
    package var lastRecordedAt: Date?
    /// WebSocket conversations.
    package var conversationCount = 0
    /// gRPC calls (stored as conversations with `grpc` heads).
    package var grpcCallCount = 0
    /// The payloads of the conversations' and gRPC calls' messages, as stored.
    package var messageBytes = 0

    /// What the cassette's recordings take: response bodies and message payloads.
    package var storedBytes: Int { bodyBytes + messageBytes }
}

/// One line of `cassette list`: an interaction without its bodies.
package struct InteractionSummary: Sendable, Equatable {
    package var id: Int64
    package var cassette: String
    package var method: String
    package var key: String
    package var sequence: Int
    package var statusCode: Int
    package var bodySize: Int
    package var recordedAt: Date
    package var durationMilliseconds: Double
}
