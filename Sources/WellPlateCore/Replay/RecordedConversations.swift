import Synchronization

/// The recorded conversations of a cassette by key, loaded once; each new connection to a key
/// takes the next of its conversations in sequence order, and the last one again after that.
package final class RecordedConversations: Sendable {
    private let byKey: [String: [Conversation]]
    /// How many connections each key has had; several event loops open connections at once.
    private let taken = Mutex<[String: Int]>([:])
    /// How many connections each stored conversation (by id) answered, for `--track-usage`.
    private let replays = Mutex<[Int64: Int]>([:])

    package init(_ conversations: [Conversation]) {
        byKey = Dictionary(grouping: conversations, by: \.key).mapValues { $0.sorted { $0.sequence < $1.sequence } }
    }

    package static let none = RecordedConversations([])

    package var isEmpty: Bool { byKey.isEmpty }

    /// Whether `key` has any recorded conversation.
    package func contains(_ key: String) -> Bool { byKey[key] != nil }

    /// The conversation a connection with `key` would get, without taking it.
    package func peek(_ key: String) -> Conversation? {
        guard let list = byKey[key] else { return nil }
        return list[min(taken.withLock { $0[key, default: 0] }, list.count - 1)]
    }

    /// Whether `key` has a conversation that no connection has taken yet.
    package func hasUntaken(_ key: String) -> Bool {
        guard let list = byKey[key] else { return false }
        return taken.withLock { $0[key, default: 0] } < list.count
    }

    /// The conversation for a new connection with `key`.
    package func take(_ key: String) -> Conversation? {
        guard let list = byKey[key] else { return nil }
        let position = taken.withLock { counts in
            defer { counts[key, default: 0] += 1 }
            return counts[key, default: 0]
        }
        let conversation = list[min(position, list.count - 1)]
        if let id = conversation.id { replays.withLock { $0[id, default: 0] += 1 } }
        return conversation
    }

    /// Connections answered per conversation id so far (`CassetteStore.addConversationUsage`).
    package var replayCounts: [Int64: Int] {
        replays.withLock { $0 }
    }

    /// The keys no connection has asked for, in order: what the proxy's summary counts as unused
    /// (as for recordings, a key served once is used, whichever of its sequences served it).
    package var untakenKeys: [String] {
        let counts = taken.withLock { $0 }
        return byKey.keys.filter { counts[$0, default: 0] == 0 }.sorted()
    }
}
