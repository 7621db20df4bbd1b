import CassetteKernel
import Foundation
import Synchronization
import WellPlateCore

/// The web UI's Sessions view: every live session and the last ones that ended, each with its
/// summary and journal, so a test's misses and unused recordings can still be read after its
/// `DELETE` (the registry forgets a session once it ends; this keeps its last picture).
extension SessionRegistry {
    /// The pictures of the sessions that ended, and how many are kept (the oldest go first).
    package struct EndedSessions: Sendable {
        package var pictures: [JSONValue] = []
        /// 20 for the view of a running proxy; `keepEveryEndedSession()` lifts it for a run's report.
        package var limit = 20
    }

    /// Keeps every session that ends from now on (up to 10,000, each with its bounded journal):
    /// `cassette run --report` shows every session the command opened, not the last 20.
    package func keepEveryEndedSession() {
        ended.withLock { $0.limit = 10_000 }
    }

    /// `{"sessions": [{id, cassette, mode, state, requests, summary, journal}], "live": true}`,
    /// live ones first (oldest id first), then the ended ones, most recent first.
    package func uiJSON() -> JSONValue {
        let liveOnes = live.map { Self.uiJSON(of: $0, state: "live") }
        return ["sessions": .array(liveOnes + ended.withLock { $0.pictures.reversed() }), "live": true]
    }

    /// Keeps the picture of `session` as it ended, for the view.
    package func keepEnded(_ session: ProxySession, state: String) {
        let picture = Self.uiJSON(of: session, state: state)
        ended.withLock { ended in
            ended.pictures.append(picture)
            if ended.pictures.count > ended.limit { ended.pictures.removeFirst(ended.pictures.count - ended.limit) }
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
