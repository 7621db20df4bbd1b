import Synchronization

/// The WebSocket conversations and the gRPC calls one cassette session recorded and missed,
/// apart, for the proxy's shutdown summary (their replays are counted where they are taken,
/// `RecordedConversations`). Atomics: conversations start and miss on several event loops at once.
package final class ConversationTally: Sendable {
    private let recordedCount = Atomic(0)
    private let missedCount = Atomic(0)
    private let grpcRecordedCount = Atomic(0)
    private let grpcMissedCount = Atomic(0)

    package init() {}

    package var recorded: Int { recordedCount.load(ordering: .relaxed) }
    package var missed: Int { missedCount.load(ordering: .relaxed) }
    /// gRPC calls recorded.
    package var grpcRecorded: Int { grpcRecordedCount.load(ordering: .relaxed) }
    /// gRPC calls no recording answered (NOT_FOUND, UNIMPLEMENTED, a changed stream message).
    package var grpcMissed: Int { grpcMissedCount.load(ordering: .relaxed) }

    func countRecorded() { recordedCount.add(1, ordering: .relaxed) }
    func countMissed() { missedCount.add(1, ordering: .relaxed) }
    func countGRPCRecorded() { grpcRecordedCount.add(1, ordering: .relaxed) }
    func countGRPCMissed() { grpcMissedCount.add(1, ordering: .relaxed) }
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

    /// A gRPC call was recorded.
    package func countGRPCRecorded() {
        conversationTally.countGRPCRecorded()
    }

    /// A gRPC call found no recording: a miss for `--strict`, counted among the gRPC calls.
    package func countGRPCMiss() {
        countMiss()
        conversationTally.countGRPCMissed()
    }
}
