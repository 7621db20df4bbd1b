import NIOHTTP1

/// Where one complete request goes, decided from its head and what its connection serves
/// (`ProxyRouter.route`); `ProxyHandler` only carries it out. Protocol switches are decided
/// earlier, when the head arrives (`UpgradeHook`), since they take the connection over.
package enum ProxyRoute: Equatable, Sendable {
    /// `X-Cassette-Session: ID` on the main port: served as on the session's own listener.
    case session(id: String)
    /// One of the proxy's own endpoints (`ControlRouter`).
    case control(ControlRouter.Endpoint)
    /// Answered from the cassette on the event loop (a replay-only proxy).
    case replay
    /// Answered in a task: it may go upstream, be recorded or passed through.
    case forward
    /// Answered at once with an error: a control request the table refuses, or a request
    /// without a session on a `--sessions-only` port (`countsAsMiss`).
    case refuse(Refusal)

    package enum Refusal: Equatable, Sendable {
        case control(ControlRefusal)
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
}

package enum ProxyRouter {
    /// The route of a request with `head` on a connection serving `context`. Pure: the same
    /// inputs always give the same route, and it touches nothing.
    package static func route(_ head: HTTPRequestHead, _ context: RouteContext) -> ProxyRoute {
        if context.hasSessions, let id = head.headers.first(name: SessionHeader.name) {
            return .session(id: id)
        }
        let isControl = head.uri.hasPrefix(ControlNames.prefix)
        if isControl {
            switch ControlRouter.route(head.method, head.uri, onMainPort: context.hasSessions) {
            case .endpoint(let endpoint): return .control(endpoint)
            case .refuse(let refusal): return .refuse(.control(refusal))
            }
        }
        if context.sessionsOnly { return .refuse(.sessionRequired) }
        return context.replaysOnly ? .replay : .forward
    }
}
