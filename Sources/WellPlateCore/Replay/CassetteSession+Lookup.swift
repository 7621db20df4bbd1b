import Foundation
import HTTPTypes

/// The index lookups every replay ends in, and the replay proxy's pick by slot (its keys come
/// from `keyer`).
extension CassetteSession {
    /// The replay proxy's hot path: takes the next recording at `slot` (`index.slot(for: keyText)`,
    /// kept by the caller; `nil` for a key without recordings), counted like every replay. The
    /// pick names a loaded recording by position, so the caller answers from what it prepared
    /// for it. `keyText` only explains a miss or an exhausted sequence, and `key` (from
    /// `keyer.key`) does it better for a request with a body, which the text only fingerprints.
    package func replayPick(slot: ReplayIndex.Slot?, keyText: String, key: RequestKey? = nil) throws -> ReplayIndex.Pick {
        let selection = slot.map { index.next(at: $0) } ?? .miss
        // A hit, nearly every time, builds no explanation (the closure below copies `key`).
        if case .hit(let pick, _) = selection {
            replayedCount.add(1, ordering: .relaxed)
            return pick
        }
        return try resolve(selection) { key ?? Self.parsedKey(keyText) }
    }

    private static func parsedKey(_ keyText: String) -> RequestKey {
        // Key text this session produced always parses back.
        RequestKey(rawValue: keyText) ?? RequestKey(method: .get, target: "/")
    }

    func lookup(key: RequestKey) throws -> Interaction {
        try resolve(index.next(for: key.rawValue)) { key }
    }

    private func resolve<Value>(_ lookup: ReplayIndex.Selection<Value>, key: () -> RequestKey) throws -> Value {
        switch lookup {
        case .hit(let value, _):
            replayedCount.add(1, ordering: .relaxed)
            return value
        case .exhausted(let count):
            missedCount.add(1, ordering: .relaxed)
            throw miss(for: key(), exhaustedAfter: count)
        case .miss:
            missedCount.add(1, ordering: .relaxed)
            throw miss(for: key(), exhaustedAfter: nil)
        }
    }
}
