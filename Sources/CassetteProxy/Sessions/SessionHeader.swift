/// `X-Cassette-Session: ID`: sends a request on the proxy's main port to a session, for clients
/// that can add a header but not change their base URL. Never forwarded or recorded.
enum SessionHeader {
    static let name = "X-Cassette-Session"
    static let lowercasedName = "x-cassette-session"
}
