import HTTPTypes

/// What clients send to the proxy itself and what it adds to its answers: the control paths
/// under `/__cassette/` and the `X-Cassette` headers, named once here.
enum ControlNames {
    /// Every control endpoint's path starts with it; nothing under it is ever forwarded.
    static let prefix = "/__cassette/"
    static let health = "/__cassette/health"
    static let stats = "/__cassette/stats"
    static let sessions = "/__cassette/sessions"
    /// The web UI and its data (`/__cassette/ui/`, `.../api/...`).
    static let ui = "/__cassette/ui"

    /// `X-Cassette: hit|recorded|passthrough|miss|stale|error|endpoint` on every answer.
    static let answerHeader = "X-Cassette"
    /// `X-Cassette-Record-Error`: the upstream's answer reached the client but was not stored.
    static let recordErrorHeader = HTTPField.Name("X-Cassette-Record-Error")!
}

/// `X-Cassette-Session: ID`: sends a request on the proxy's main port to a session, for clients
/// that can add a header but not change their base URL. Never forwarded or recorded.
enum SessionHeader {
    static let name = "X-Cassette-Session"
    static let lowercasedName = "x-cassette-session"
}
