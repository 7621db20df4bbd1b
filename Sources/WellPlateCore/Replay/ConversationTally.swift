import Synchronization

/// The WebSocket conversations one cassette session recorded and missed, for the proxy's
/// shutdown summary (its replays are counted where they are taken, `RecordedConversations`).
/// Atomics: conversations start and miss on several event loops at once.
package final class ConversationTally: Sendable {
    private let recordedCount = Atomic(0)
    private let missedCount = Atomic(0)

    package init() {}

    package var recorded: Int { recordedCount.load(ordering: .relaxed) }
    package var missed: Int { missedCount.load(ordering: .relaxed) }

    func countRecorded() { recordedCount.add(1, ordering: .relaxed) }
    func countMissed() { missedCount.add(1, ordering: .relaxed) }
}

extension CassetteSession {
    /// A conversation began recording (the upstream switched).
    package func countConversationRecorded() {
        conversationTally.countRecorded()
    }

    /// A replayed conversation's client message missed: a miss for `--strict` as a request's is,
    /// and counted among the conversations.
    package func countConversationMiss() {
        countMiss()
        conversationTally.countMissed()
    }
}
