import CassetteKernel
import NIOHTTP1

/// Where one complete request to a listener serving a cassette goes, decided from its head and
/// what the listener serves (`ProxyRouter.route`); `ServingRoute` only carries it out. The
/// kernel settles control paths (`ControlTable`) and protocol switches before any of this.
package enum ProxyRoute: Equatable, Sendable {
    /// `X-Cassette-Session: ID` on the main port: served as on the session's own listener.
    case session(id: String)
    /// Answered from the cassette on the event loop (a replay-only proxy).
    case replay
    /// Answered in a task: it may go upstream, be recorded or passed through.
    case forward
    /// Answered at once with an error: a request without a session on a `--sessions-only` port
    /// (a miss for the summary and `--strict`).
    case refuse(Refusal)

    package enum Refusal: Equatable, Sendable {
        /// No `X-Cassette-Session` on a `--sessions-only` main port: a miss for the summary and `--strict`.
        case sessionRequired
    }
}

/// What a connection serves, as routing needs to know it.
package struct RouteContext: Equatable, Sendable {
    /// The main port, with sessions (`X-Cassette-Session`, `/__cassette/sessions`).
    package var hasSessions: Bool
    /// `--sessions-only`: requests without a session are refused.
    package var sessionsOnly: Bool
    /// Every answer is made on the event loop from prepared recordings.
    package var replaysOnly: Bool

    package init(hasSessions: Bool, sessionsOnly: Bool, replaysOnly: Bool) {
        self.hasSessions = hasSessions
        self.sessionsOnly = sessionsOnly
        self.replaysOnly = replaysOnly
    }
}

package enum ProxyRouter {
    /// The route of a request with `head` on a connection serving `context`. Pure: the same
    /// inputs always give the same route, and it touches nothing.
    package static func route(_ head: HTTPRequestHead, _ context: RouteContext) -> ProxyRoute {
        if context.hasSessions, let id = head.headers.first(name: SessionHeader.name) {
            return .session(id: id)
        }
        if context.sessionsOnly { return .refuse(.sessionRequired) }
        return context.replaysOnly ? .replay : .forward
    }
}
