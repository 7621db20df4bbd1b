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
        var summary = session.summary.json()
        if let methods = unusedGRPCMethods(of: session) { summary["unusedGRPCMethods"] = .array(methods.map(JSONValue.string)) }
        object["summary"] = .object(summary)
        object["journal"] = session.journal.json(filter: SessionJournal.Filter())
        return .object(object)
    }

    /// The paths (`/package.Service/Method`) of the gRPC methods no call of the session used, as
    /// the view counts them beside its unused recordings; `nil` when its cassette has no gRPC call.
    /// The session's listeners share its calls: each counted once.
    static func unusedGRPCMethods(of session: ProxySession) -> [String]? {
        var seen: Set<ObjectIdentifier> = []
        var methods: Set<String> = []
        var unused: Set<String> = []
        for recorded in session.listeners.flatMap({ $0.parts.conversations.map(\.recorded) }) where seen.insert(ObjectIdentifier(recorded)).inserted {
            let keys = recorded.grpcKeys
            methods.formUnion(keys)
            unused.formUnion(recorded.untakenKeys.filter { keys.contains($0) })
        }
        guard !methods.isEmpty else { return nil }
        return unused.sorted().map { $0.hasPrefix("POST ") ? String($0.dropFirst(5)) : $0 }
    }
}
