import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// A three-way merge of cassette stores, recording by recording, for git's merge driver. A
/// recording is identified by cassette, key and sequence position; each side's change against the
/// base is taken, and a recording changed differently on both sides (or changed on one and
/// deleted on the other, or added differently on both) is a conflict.
package struct CassetteMerge: Sendable {
    /// What one side of the merge holds.
    package struct Snapshot: Sendable {
        package var cassettes: [CassetteInfo]
        package var interactions: [Interaction]
        /// Keyed hashes of secrets learned from responses: only ever added, so the result has
        /// every side's.
        package var learnedSecrets: [LearnedSecrets.StoredDigest]
        /// WebSocket conversations with their messages, merged like recordings.
        package var conversations: [Conversation]

        package init(
            cassettes: [CassetteInfo] = [], interactions: [Interaction] = [], learnedSecrets: [LearnedSecrets.StoredDigest] = [],
            conversations: [Conversation] = []
        ) {
            self.cassettes = cassettes
            self.interactions = interactions
            self.learnedSecrets = learnedSecrets
            self.conversations = conversations
        }
    }

    package enum Side: String, Sendable, CaseIterable {
        case ours, theirs
    }

    package struct Conflict: Sendable, Equatable, CustomStringConvertible {
        package var cassette: String
        package var key: String
        package var sequence: Int
        package var reason: String

        package var description: String { "\(cassette) \(key) #\(sequence): \(reason)" }
    }

    package struct Result: Sendable {
        /// Sorted by cassette, key and sequence.
        package var interactions: [Interaction]
        package var cassettes: [CassetteInfo]
        package var conflicts: [Conflict]
        /// Recordings theirs added, changed or deleted that the result took over.
        package var takenFromTheirs: Int
        package var learnedSecrets: [LearnedSecrets.StoredDigest] = []
        /// Sorted by cassette, key and sequence; each keeps its sequence position.
        package var conversations: [Conversation] = []
    }

    private struct Identity: Hashable, Comparable {
        let cassette: String
        let key: String
        let sequence: Int

        static func < (lhs: Identity, rhs: Identity) -> Bool {
            (lhs.cassette, lhs.key, lhs.sequence) < (rhs.cassette, rhs.key, rhs.sequence)
        }
    }

    /// Resolves conflicts with the preferred side; `nil` leaves them in `Result.conflicts` (the
    /// result then holds ours for them).
    package var preferring: Side?

    package init(preferring: Side? = nil) {
        self.preferring = preferring
    }

    package func merge(base: Snapshot, ours: Snapshot, theirs: Snapshot) -> Result {
        let recordings = mergeRows(
            base: base.interactions, ours: ours.interactions, theirs: theirs.interactions,
            identity: { Identity(cassette: $0.cassette, key: $0.key, sequence: $0.sequence) }, same: Self.same, what: "")
        // A conversation is identified as a recording is (cassette, key, sequence), so a key
        // recorded again on one side keeps its place.
        let conversations = mergeRows(
            base: base.conversations, ours: ours.conversations, theirs: theirs.conversations,
            identity: { Identity(cassette: $0.cassette, key: $0.key, sequence: $0.sequence) }, same: Self.same, what: "WebSocket conversation ")
        var learned = Set<LearnedSecrets.StoredDigest>()
        let learnedSecrets = (base.learnedSecrets + ours.learnedSecrets + theirs.learnedSecrets).filter { learned.insert($0).inserted }
        return Result(
            interactions: recordings.merged, cassettes: mergeCassettes(base: base, ours: ours, theirs: theirs),
            conflicts: recordings.conflicts + conversations.conflicts, takenFromTheirs: recordings.takenFromTheirs + conversations.takenFromTheirs,
            learnedSecrets: learnedSecrets, conversations: conversations.merged)
    }

    /// The three-way merge of one kind of row: each side's change against the base is taken; a
    /// row changed differently on both sides is a conflict (`what` names the kind in its reason).
    private func mergeRows<Row>(
        base: [Row], ours: [Row], theirs: [Row], identity: (Row) -> Identity, same: (Row?, Row?) -> Bool, what: String
    ) -> (merged: [Row], conflicts: [Conflict], takenFromTheirs: Int) {
        func index(_ rows: [Row]) -> [Identity: Row] {
            var indexed: [Identity: Row] = [:]
            for row in rows { indexed[identity(row)] = row }
            return indexed
        }
        let (baseRows, ourRows, theirRows) = (index(base), index(ours), index(theirs))
        var merged: [Row] = []
        var conflicts: [Conflict] = []
        var takenFromTheirs = 0
        for identity in Set(baseRows.keys).union(ourRows.keys).union(theirRows.keys).sorted() {
            let (old, mine, other) = (baseRows[identity], ourRows[identity], theirRows[identity])
            let chosen: Row?
            if same(mine, old) {
                chosen = other
                if !same(other, old) { takenFromTheirs += 1 }
            } else if same(other, old) || same(mine, other) {
                chosen = mine
            } else {
                let reason =
                    switch (old == nil, mine == nil, other == nil) {
                    case (true, _, _): "added differently on both sides"
                    case (false, true, _): "deleted in ours, changed in theirs"
                    case (false, _, true): "changed in ours, deleted in theirs"
                    default: "changed differently on both sides"
                    }
                conflicts.append(Conflict(cassette: identity.cassette, key: identity.key, sequence: identity.sequence, reason: what + reason))
                chosen = preferring == .theirs ? other : mine
                if preferring == .theirs { takenFromTheirs += 1 }
            }
            if let chosen { merged.append(chosen) }
        }
        return (merged, conflicts, takenFromTheirs)
    }

    /// Cassette metadata: theirs where ours left it as it was, ours otherwise.
    private func mergeCassettes(base: Snapshot, ours: Snapshot, theirs: Snapshot) -> [CassetteInfo] {
        func index(_ snapshot: Snapshot) -> [String: CassetteInfo] {
            Dictionary(snapshot.cassettes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
        let (old, mine, other) = (index(base), index(ours), index(theirs))
        return Set(mine.keys).union(other.keys).sorted().compactMap { name in
            mine[name] == old[name] ? other[name] : (mine[name] ?? (preferring == .theirs ? other[name] : nil))
        }
    }

    /// The same recording: equal request and response. Row ids differ between files, and a
    /// re-recording that brought back the same answer is no change worth a conflict, whatever
    /// its time, duration or the HTTP version its client spoke.
    private static func same(_ lhs: Interaction?, _ rhs: Interaction?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case let (left?, right?):
            var (left, right) = (left, right)
            left.id = nil
            right.id = nil
            right.recordedAt = left.recordedAt
            right.duration = left.duration
            right.httpVersion = left.httpVersion
            return left == right
        default: return false
        }
    }

    /// The same conversation: equal handshake, messages and end. Row ids, recording times,
    /// message offsets and the handshake's random `Sec-WebSocket-Key` differ on every
    /// re-recording of the same exchange, and are no change worth a conflict.
    private static func same(_ lhs: Conversation?, _ rhs: Conversation?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case let (left?, right?):
            func comparable(_ conversation: Conversation) -> Conversation {
                var conversation = conversation
                conversation.id = nil
                conversation.recordedAt = Date(timeIntervalSince1970: 0)
                conversation.requestHeaders[HTTPField.Name("Sec-WebSocket-Key")!] = nil
                for index in conversation.messages.indices { conversation.messages[index].offsetMilliseconds = 0 }
                return conversation
            }
            return comparable(left) == comparable(right)
        default: return false
        }
    }
}
