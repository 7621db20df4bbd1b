import Synchronization

/// The recorded conversations of a cassette by key, loaded once; each new connection to a key
/// takes the next of its conversations in sequence order, and the last one again after that.
package final class RecordedConversations: Sendable {
    private let byKey: [String: [Recorded]]
    /// How many connections each key has had; several event loops open connections at once.
    private let taken = Mutex<[String: Int]>([:])
    /// How many connections each stored conversation (by id) answered, for `--track-usage`.
    private let replays = Mutex<[Int64: Int]>([:])

    /// One recorded conversation, split into its operations and with its echoed values worked
    /// out when a connection first takes it, and kept: a conversation replayed to many
    /// connections (a load test reconnecting) is not searched again for every one (`perf`: a few
    /// microseconds per message of the recording).
    private final class Recorded: Sendable {
        let conversation: Conversation
        private let prepared = Mutex<MultiplexedReplay?>(nil)

        init(_ conversation: Conversation) {
            self.conversation = conversation
        }

        func replay() -> MultiplexedReplay {
            prepared.withLock { cached in
                if let cached { return cached }
                let found = MultiplexedReplay(conversation)
                cached = found
                return found
            }
        }
    }

    package init(_ conversations: [Conversation]) {
        byKey = Dictionary(grouping: conversations, by: \.key).mapValues { $0.sorted { $0.sequence < $1.sequence }.map(Recorded.init) }
    }

    package static let none = RecordedConversations([])

    package var isEmpty: Bool { byKey.isEmpty }

    /// Whether `key` has any recorded conversation.
    package func contains(_ key: String) -> Bool { byKey[key] != nil }

    /// The conversation a connection with `key` would get, without taking it.
    package func peek(_ key: String) -> Conversation? {
        guard let list = byKey[key] else { return nil }
        return list[min(taken.withLock { $0[key, default: 0] }, list.count - 1)].conversation
    }

    /// Every conversation of `key`, in sequence order (a gRPC call picks among them by its
    /// request), taking none: the one that answers is counted by `countServed` once it did.
    package func all(_ key: String) -> [Conversation] {
        byKey[key]?.map(\.conversation) ?? []
    }

    /// `conversation` answered a call (a gRPC call replayed from it to its end): its key is used,
    /// and the conversation counted for `--track-usage` and the summary, once per call.
    package func countServed(_ conversation: Conversation) {
        taken.withLock { $0[conversation.key, default: 0] += 1 }
        if let id = conversation.id { replays.withLock { $0[id, default: 0] += 1 } }
    }

    /// The ids of the gRPC calls among the conversations: the summary counts them apart.
    package var grpcIDs: Set<Int64> {
        Set(byKey.values.joined().compactMap { $0.conversation.grpc == nil ? nil : $0.conversation.id })
    }

    /// The keys of gRPC calls (`POST /package.Service/Method`).
    package var grpcKeys: Set<String> {
        Set(byKey.compactMap { key, list in list.contains { $0.conversation.grpc != nil } ? key : nil })
    }

    /// The keys that have conversations.
    package var keys: [String] { Array(byKey.keys) }

    /// Whether `key` has a conversation that no connection has taken yet.
    package func hasUntaken(_ key: String) -> Bool {
        guard let list = byKey[key] else { return false }
        return taken.withLock { $0[key, default: 0] } < list.count
    }

    /// The replay of the conversation for a new connection with `key`, from its start.
    package func take(_ key: String) -> MultiplexedReplay? {
        guard let list = byKey[key] else { return nil }
        let position = taken.withLock { counts in
            defer { counts[key, default: 0] += 1 }
            return counts[key, default: 0]
        }
        let recorded = list[min(position, list.count - 1)]
        if let id = recorded.conversation.id { replays.withLock { $0[id, default: 0] += 1 } }
        return recorded.replay()
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

/// A handshake is served by the same step as a request: a conversation no connection has taken
/// is the unserved recording that `missing` mode replays.
extension RecordedConversations: RecordingLookup {
    package func isRecorded(_ key: String) -> Bool { contains(key) }
    package func hasUnservedRecording(_ key: String) -> Bool { hasUntaken(key) }
}
