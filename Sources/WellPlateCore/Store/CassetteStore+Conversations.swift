import Foundation

/// Writing and reading WebSocket conversations (`Conversation`). A recorder begins a conversation
/// when the handshake succeeds, appends its messages in batches as they pass, and ends it; a
/// conversation whose end never came stays marked `cut`, with every message already appended.
extension CassetteStore {
    /// Stores the handshake of `conversation` (its messages, if any, too) at the next sequence
    /// position of its key, and returns it with its id and sequence.
    package func beginConversation(_ conversation: Conversation) throws(CassetteStoreError) -> Conversation {
        try writing { connection in
            try connection.transaction { try Self.insert(conversation, into: connection) }
        }
    }

    /// Stores imported conversations (a HAR file's) in one transaction, each complete with its
    /// messages and end, at the next sequence positions of their keys. `replacing`: the
    /// cassette's conversations of the same keys go first; otherwise a key that has conversations
    /// already is left alone. Returns how many were stored.
    package func importConversations(_ conversations: [Conversation], replacing: Bool) throws(CassetteStoreError) -> Int {
        guard !conversations.isEmpty else { return 0 }
        return try writing { connection in
            try connection.transaction {
                let existing = try connection.prepare("SELECT count(*) FROM conversations WHERE cassette = ? AND request_key = ?")
                let delete = try connection.prepare("DELETE FROM conversations WHERE cassette = ? AND request_key = ?")
                var stored = 0
                var cleared: Set<String> = []
                for conversation in conversations {
                    let slot = conversation.cassette + "\n" + conversation.key
                    if replacing {
                        if cleared.insert(slot).inserted { try delete.run(conversation.cassette, conversation.key) }
                    } else if !cleared.contains(slot) {
                        existing.reset()
                        try existing.bind(conversation.cassette, conversation.key)
                        let count = try existing.step() ? existing.int(at: 0) : 0
                        existing.reset()
                        guard count == 0 else { continue }
                        cleared.insert(slot)
                    }
                    _ = try Self.insert(conversation, into: connection)
                    stored += 1
                }
                return stored
            }
        }
    }

    /// Stores complete conversations (a merge's result) in one transaction, each at the sequence
    /// position it has, so a key's conversations keep their order and places.
    package func storeConversations(_ conversations: [Conversation]) throws(CassetteStoreError) {
        guard !conversations.isEmpty else { return }
        try writing { connection in
            try connection.transaction {
                for conversation in conversations { _ = try Self.insert(conversation, into: connection, keepingSequence: true) }
            }
        }
    }

    /// Inserts `conversation` with its messages at the next sequence position of its key (at its
    /// own with `keepingSequence`).
    private static func insert(_ conversation: Conversation, into connection: SQLiteConnection, keepingSequence: Bool = false) throws -> Conversation {
        var stored = conversation
        if !keepingSequence {
            let next = try connection.cachedStatement(
                "SELECT coalesce(max(sequence) + 1, 0) FROM conversations WHERE cassette = ? AND request_key = ?")
            next.reset()
            try next.bind(conversation.cassette, conversation.key)
            stored.sequence = try next.step() ? next.int(at: 0) : 0
            next.reset()
        }
        try connection.cachedStatement(
            """
            INSERT INTO conversations (cassette, url, request_key, sequence, request_headers, subprotocol, extensions,
                recorded_at, end_kind, end_by, close_code, close_reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        ).run(
            stored.cassette, stored.url, stored.key, stored.sequence, HeaderLines.encode(stored.requestHeaders), stored.subprotocol,
            stored.extensions, stored.recordedAt.timeIntervalSince1970, stored.end.storedKind, stored.end.side?.rawValue,
            stored.end.code, stored.end.reason)
        let id = connection.lastInsertRowID
        stored.id = id
        try Self.insert(messages: stored.messages, conversation: id, from: 0, into: connection)
        if let heads = stored.grpc { try Self.store(heads, conversation: id, into: connection) }
        return stored
    }

    /// Appends `messages` to conversation `id` from `position` on, in one transaction: a recorder
    /// batches what arrived while the previous batch was being written.
    package func appendMessages(_ messages: [ConversationMessage], toConversation id: Int64, from position: Int) throws(CassetteStoreError) {
        guard !messages.isEmpty else { return }
        try writing { connection in
            try connection.transaction { try Self.insert(messages: messages, conversation: id, from: position, into: connection) }
        }
    }

    /// Records how conversation `id` ended.
    package func endConversation(_ id: Int64, _ end: ConversationEnd) throws(CassetteStoreError) {
        try writing { connection in
            try connection.cachedStatement("UPDATE conversations SET end_kind = ?, end_by = ?, close_code = ?, close_reason = ? WHERE id = ?")
                .run(end.storedKind, end.side?.rawValue, end.code, end.reason, id)
        }
    }

    /// The conversations of one cassette (every cassette: `nil`) with their messages, ordered by
    /// key and sequence. Empty for a store from before conversations.
    package func conversations(cassette: String?) throws(CassetteStoreError) -> [Conversation] {
        try conversations(cassette: cassette, id: nil, messages: true).map(\.conversation)
    }

    /// The conversation with row id `id` and its messages; `nil` when there is none.
    package func conversation(id: Int64) throws(CassetteStoreError) -> Conversation? {
        try conversations(cassette: nil, id: id, messages: true).first?.conversation
    }

    /// The conversations of one cassette (every cassette: `nil`) without their messages, each
    /// with how many it has: what a listing shows, without reading every payload.
    package func conversationHeadings(cassette: String?) throws(CassetteStoreError) -> [(conversation: Conversation, messages: Int)] {
        try conversations(cassette: cassette, id: nil, messages: false)
    }

    /// `messages`: read each conversation's messages (counted as read), or only count them.
    private func conversations(
        cassette: String?, id: Int64?, messages reads: Bool
    ) throws(CassetteStoreError) -> [(
        conversation: Conversation, messages: Int
    )] {
        try reading { connection in
            guard try connection.tableNames().contains("conversations") else { return [] }
            let statement = try connection.prepare(
                """
                SELECT id, cassette, url, request_key, sequence, request_headers, subprotocol, extensions, recorded_at,
                    end_kind, end_by, close_code, close_reason
                FROM conversations WHERE (?1 IS NULL OR cassette = ?1) AND (?2 IS NULL OR id = ?2) ORDER BY cassette, request_key, sequence
                """)
            try statement.bind(cassette, at: 1)
            try statement.bind(id, at: 2)
            var conversations = try statement.mapRows { row in
                Conversation(
                    id: row.int64(at: 0), cassette: row.text(at: 1), url: row.text(at: 2), key: row.text(at: 3), sequence: row.int(at: 4),
                    requestHeaders: HeaderLines.decode(row.text(at: 5)), subprotocol: row.isNull(at: 6) ? nil : row.text(at: 6),
                    extensions: row.isNull(at: 7) ? nil : row.text(at: 7), recordedAt: Date(timeIntervalSince1970: row.double(at: 8)),
                    end: ConversationEnd(
                        storedKind: row.text(at: 9), side: row.isNull(at: 10) ? nil : row.text(at: 10), code: row.isNull(at: 11) ? nil : row.int(at: 11),
                        reason: row.isNull(at: 12) ? "" : row.text(at: 12)))
            }
            guard reads else {
                try Self.readGRPCHeads(into: &conversations, from: connection)
                let counting = try connection.prepare("SELECT count(*) FROM conversation_messages WHERE conversation_id = ?")
                return try conversations.map { conversation in
                    counting.reset()
                    try counting.bind(conversation.id!, at: 1)
                    return (conversation, try counting.firstRow { $0.int(at: 0) } ?? 0)
                }
            }
            try Self.readGRPCHeads(into: &conversations, from: connection)
            let messages = try connection.prepare(
                "SELECT direction, kind, payload, fragments, offset_ms FROM conversation_messages WHERE conversation_id = ? ORDER BY position")
            for index in conversations.indices {
                messages.reset()
                try messages.bind(conversations[index].id!, at: 1)
                conversations[index].messages = try messages.mapRows { row in
                    ConversationMessage(
                        direction: ConversationSide(rawValue: row.text(at: 0)) ?? .server,
                        kind: ConversationMessage.Kind(rawValue: row.text(at: 1)) ?? .binary, payload: row.blob(at: 2),
                        fragments: row.text(at: 3).split(separator: ",").compactMap { Int($0) }, offsetMilliseconds: row.double(at: 4))
                }
            }
            return conversations.map { ($0, $0.messages.count) }
        }
    }

    /// How many conversations each cassette holds (for listings); empty for an older store.
    package func conversationCounts() throws(CassetteStoreError) -> [String: Int] {
        try reading { connection in
            guard try connection.tableNames().contains("conversations") else { return [:] }
            var counts: [String: Int] = [:]
            try connection.prepare("SELECT cassette, count(*) FROM conversations GROUP BY cassette").forEachRow { row in
                counts[row.text(at: 0)] = row.int(at: 1)
            }
            return counts
        }
    }

    private static func insert(messages: [ConversationMessage], conversation id: Int64, from position: Int, into connection: SQLiteConnection) throws {
        guard !messages.isEmpty else { return }
        let insert = try connection.cachedStatement(
            """
            INSERT INTO conversation_messages (conversation_id, position, direction, kind, payload, fragments, offset_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for (offset, message) in messages.enumerated() {
            try insert.run(
                id, position + offset, message.direction.rawValue, message.kind.rawValue, message.payload,
                message.fragments.map(String.init).joined(separator: ","), message.offsetMilliseconds)
        }
    }
}

extension ConversationEnd {
    /// Read back from its stored columns; an unknown kind reads as `cut`.
    init(storedKind: String, side: String?, code: Int?, reason: String) {
        let by = side.flatMap(ConversationSide.init(rawValue:)) ?? .server
        switch storedKind {
        case "closed": self = .closed(by: by, code: code, reason: reason)
        case "dropped": self = .dropped(by: by, reset: code.map(HTTP2ResetCode.init(rawValue:)))
        default: self = .cut
        }
    }

    var side: ConversationSide? {
        switch self {
        case .closed(let by, _, _), .dropped(let by, _): by
        case .cut: nil
        }
    }

    /// The close frame's code, or the RST_STREAM's (in the same column).
    var code: Int? {
        switch self {
        case .closed(_, let code, _): code
        case .dropped(_, let reset): reset?.rawValue
        case .cut: nil
        }
    }

    var reason: String? {
        if case .closed(_, _, let reason) = self { return reason }
        return nil
    }
}

extension CassetteStore {
    /// The keys that have conversations (one cassette's, or every cassette's), without reading
    /// their messages; empty for a store from before conversations.
    package func conversationKeys(cassette: String?) throws(CassetteStoreError) -> Set<String> {
        try reading { connection in
            guard try connection.tableNames().contains("conversations") else { return [] }
            let statement = try connection.prepare("SELECT DISTINCT request_key FROM conversations WHERE ?1 IS NULL OR cassette = ?1")
            try statement.bind(cassette, at: 1)
            return Set(try statement.mapRows { $0.text(at: 0) })
        }
    }
}
