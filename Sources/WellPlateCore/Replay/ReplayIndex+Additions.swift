/// Recordings made during a session (record modes), kept apart from those loaded at start-up so
/// that a replay-only session's lookups never need the lock that guards these.
extension ReplayIndex {
    struct Additions {
        struct Entry {
            /// `all` mode replaced the loaded recordings of the key: only `recordings` remain.
            var replacesLoaded = false
            var recordings: [Interaction] = []
            /// Position and hit count of a key that was not loaded (loaded keys count in
            /// `SlotCounters`, whichever list their recordings are in).
            var served = 0
            var replayed = 0

            mutating func take(policy: SequencePolicy) -> Selection<Pick> {
                let count = recordings.count
                guard count > 0 else { return .miss }
                let position = served
                served += 1
                guard let chosen = ReplayIndex.choose(position: position, count: count, policy: policy) else { return .exhausted(count: count) }
                replayed += 1
                return .hit(.recorded(recordings[chosen]), repeated: position >= count)
            }
        }

        /// Recordings added to keys that were loaded, by slot position.
        var toLoadedSlots: [Int: Entry] = [:]
        /// Keys first recorded in this session: their slots follow the loaded ones.
        var newPositions: [String: Int] = [:]
        var newEntries: [Entry] = []
        /// Recordings added less those replaced.
        var countChange = 0
        /// Hash-only GraphQL keys of requests recorded with their document during the session,
        /// to the slot position of that recording (`ReplayIndex.appendServed(_:alias:)`).
        var aliases: [String: Int] = [:]

        mutating func withNewEntry<Result>(_ key: String, _ body: (inout Entry) -> Result) -> Result {
            let position = newPositions[key] ?? newEntries.count
            if position == newEntries.count {
                newPositions[key] = position
                newEntries.append(Entry())
            }
            return body(&newEntries[position])
        }
    }
}
