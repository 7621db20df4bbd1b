/// Building the recordings loaded at start-up: rows arrive in any order, and each key's
/// recordings end up side by side in sequence order, numbered by their position.
extension ReplayIndex {
    /// Recordings loaded at start-up; never changed once built.
    struct LoadedRecordings: Sendable {
        var recordings: [Interaction] = []
        var positions: [String: Int] = [:]
        /// `starts[slot]..<starts[slot + 1]` are the positions of the slot's recordings.
        var starts: [Int] = [0]
        /// No key holds a byte outside ASCII, raw or percent-encoded (`Builder.isASCIIKey`).
        var keysAreASCII = true
        /// Other keys that lead to a slot: a GraphQL operation's hash-only key leads to the
        /// recordings made with its document (`addGraphQLAliases`). Looked up before `positions`.
        var aliases: [String: Int] = [:]

        var slotCount: Int { starts.count - 1 }

        /// Lets a hash-only GraphQL request (automatic persisted queries) find the recordings made
        /// with the document of that hash, unless the hash-only key has answers of its own that
        /// are not `PersistedQueryNotFound`: such an answer is never chosen over a real one.
        mutating func addGraphQLAliases(rules: MatchingRules) {
            guard !rules.graphQLPaths.isEmpty else { return }
            let marker = " \(GraphQLKeyPart.prefix)"
            // Every recording of a key: clients that print one document differently (gql prints
            // it from its syntax tree) send other texts, so other hashes, for the same key.
            for (key, slot) in positions where key.contains(marker) {
                for recording in recordings[range(of: slot)] {
                    guard
                        let alias = RequestKey.graphQLHashOnly(
                            method: recording.method, target: recording.url, headerFields: recording.requestHeaders,
                            body: recording.requestBody, rules: rules)?.rawValue,
                        alias != key, aliases[alias] == nil
                    else { continue }
                    if let own = positions[alias], !recordings[range(of: own)].allSatisfy(\.isPersistedQueryNotFound) { continue }
                    aliases[alias] = slot
                }
            }
        }

        func range(of slot: Int) -> Range<Int> {
            starts[slot]..<starts[slot + 1]
        }
    }

    /// Collects recordings one at a time, so a store can build the index while it reads rows and
    /// never holds the whole cassette twice.
    struct Builder {
        private var positions: [String: Int] = [:]
        /// In load order, with the slot and response header block of each.
        private var recordings: [Interaction] = []
        private var slots: [Int] = []
        private var responseHeaderBlocks: [Int] = []
        private var pool = HeaderPool()
        private var keysAreASCII = true

        /// Sizes the tables for `count` recordings up front, avoiding rehashing while loading.
        mutating func reserveCapacity(_ count: Int) {
            positions.reserveCapacity(count)
            recordings.reserveCapacity(count)
            slots.reserveCapacity(count)
            responseHeaderBlocks.reserveCapacity(count)
        }

        /// `responseHeaderBlock`: set by a caller that already shares header sets
        /// (`InteractionRowReader`): recordings with equal numbers have equal response headers.
        /// Consumes the recording and hashes its key once: this runs for every row of a cassette.
        mutating func add(_ interaction: consuming Interaction, responseHeaderBlock: Int? = nil) {
            var interaction = interaction
            if responseHeaderBlock == nil { pool.compact(&interaction) }
            let next = positions.count
            let slot = Self.settle(&positions[interaction.key, default: next])
            if slot == next, keysAreASCII { keysAreASCII = Self.isASCIIKey(interaction.key) }
            slots.append(slot)
            responseHeaderBlocks.append(responseHeaderBlock ?? 0)
            recordings.append(consume interaction)
        }

        private static func settle(_ position: inout Int) -> Int { position }

        /// Whether key text holds only ASCII, with no percent-encoded byte above 0x7F either.
        static func isASCIIKey(_ key: String) -> Bool {
            var afterPercent = false
            for byte in key.utf8 {
                if byte >= 0x80 { return false }
                // A first hex digit of 8-F encodes a byte above 0x7F.
                if afterPercent, (UInt8(ascii: "8")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte & 0xDF) {
                    return false
                }
                afterPercent = byte == UInt8(ascii: "%")
            }
            return true
        }

        consuming func build() -> LoadedRecordings {
            arranged().loaded
        }

        /// The loaded recordings and, at the same positions, what `preparer` makes of each.
        consuming func build<Preparer: ReplayAnswerPreparer>(preparing preparer: inout Preparer) -> (LoadedRecordings, [Preparer.Answer]) {
            let blocks = responseHeaderBlocks
            var (loaded, order) = arranged()
            var answers: [Preparer.Answer] = []
            answers.reserveCapacity(loaded.recordings.count)
            for position in loaded.recordings.indices {
                let number = order?[position] ?? position
                answers.append(preparer.prepare(&loaded.recordings[position], number: number, responseHeaderBlock: blocks[number]))
            }
            return (loaded, answers)
        }

        /// Each key's recordings side by side, in sequence order (a counting sort by slot), and
        /// the load number at each position, `nil` when the rows came in that order already (a
        /// cassette recorded once, in key order).
        private consuming func arranged() -> (loaded: LoadedRecordings, order: [Int]?) {
            let slotCount = positions.count
            var starts = [Int](repeating: 0, count: slotCount + 1)
            for slot in slots { starts[slot + 1] += 1 }
            for slot in 0..<slotCount { starts[slot + 1] += starts[slot] }
            var order = [Int](repeating: 0, count: recordings.count)
            var next = starts
            for (number, slot) in slots.enumerated() {
                order[next[slot]] = number
                next[slot] += 1
            }
            for slot in 0..<slotCount where starts[slot + 1] - starts[slot] > 1 {
                order[starts[slot]..<starts[slot + 1]].sort { recordings[$0].sequence < recordings[$1].sequence }
            }
            slots = []
            if order.elementsEqual(order.indices) {
                return (LoadedRecordings(recordings: recordings, positions: positions, starts: starts, keysAreASCII: keysAreASCII), nil)
            }
            let arranged = order.map { recordings[$0] }
            recordings = []
            return (LoadedRecordings(recordings: arranged, positions: positions, starts: starts, keysAreASCII: keysAreASCII), order)
        }
    }
}

/// Turns each recording loaded for replay into the caller's own answer while the cassette opens
/// (the replay proxy's prepared responses): the caller holds its answers at the index's positions
/// (`ReplayIndex.Pick.loaded`), and each body is copied once, from the store into the caller's
/// storage, which the index then shares.
package protocol ReplayAnswerPreparer {
    associatedtype Answer: Sendable

    /// Copies the response body of the `number`th recording loaded (from 0, in load order);
    /// `bytes` are valid only during the call.
    mutating func storeBody(_ bytes: UnsafeRawBufferPointer, number: Int)

    /// Called once every body is stored: sets `recording.responseBody` to a view of the bytes
    /// stored for `number`, which the index keeps instead of a copy, and returns the recording's
    /// answer. Recordings with the same `responseHeaderBlock` have equal response headers, so
    /// what is derived from them can be shared.
    mutating func prepare(_ recording: inout Interaction, number: Int, responseHeaderBlock: Int) -> Answer
}
