import CassetteKernel

/// The control paths serving registers (`ServingControls`).
extension ControlNames {
    package static let health = "/__cassette/health"
    package static let stats = "/__cassette/stats"
    package static let sessions = "/__cassette/sessions"
}

/// `X-Cassette-Session: ID`: sends a request on the proxy's main port to a session, for clients
/// that can add a header but not change their base URL. Never forwarded or recorded.
package enum SessionHeader {
    package static let name = "X-Cassette-Session"
    package static let lowercasedName = "x-cassette-session"
}
