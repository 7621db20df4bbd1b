import Foundation
import Synchronization
import WellPlateCore

/// The web UI's Sessions view: every live session and the last ones that ended, each with its
/// summary and journal, so a test's misses and unused recordings can still be read after its
/// `DELETE` (the registry forgets a session once it ends; this keeps its last picture).
extension SessionRegistry {
    /// How many ended sessions the view keeps (the oldest go first).
    static let endedKept = 20

    /// `{"sessions": [{id, cassette, mode, state, requests, summary, journal}], "live": true}`,
    /// live ones first (oldest id first), then the ended ones, most recent first.
    func uiJSON() -> JSONValue {
        let liveOnes = live.map { Self.uiJSON(of: $0, state: "live") }
        return ["sessions": .array(liveOnes + ended.withLock { $0.reversed() }), "live": true]
    }

    /// Keeps the picture of `session` as it ended, for the view.
    func keepEnded(_ session: ProxySession, state: String) {
        let picture = Self.uiJSON(of: session, state: state)
        ended.withLock { ended in
            ended.append(picture)
            if ended.count > Self.endedKept { ended.removeFirst(ended.count - Self.endedKept) }
        }
    }

    private static func uiJSON(of session: ProxySession, state: String) -> JSONValue {
        var object = session.json
        object["state"] = .string(state)
        object["summary"] = .object(session.summary.json())
        object["journal"] = session.journal.json(filter: SessionJournal.Filter())
        return .object(object)
    }
}
