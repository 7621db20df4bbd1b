import Foundation

extension CassetteStore {
    /// Adds `counts` (replays per conversation id) to the stored usage of conversations, stamped
    /// `date`, in one transaction. Ids of conversations deleted meanwhile are ignored.
    package func addConversationUsage(_ counts: [Int64: Int], at date: Date = Date()) throws(CassetteStoreError) {
        try addUsage(counts, at: date, in: .conversations)
    }

    /// Usage by conversation id (one cassette, or all). Empty for a store whose replays were
    /// never tracked, including stores from before schema 7 opened read-only.
    package func conversationUsage(cassette: String?) throws(CassetteStoreError) -> [Int64: RecordingUsage] {
        try usage(cassette: cassette, in: .conversations)
    }
}
