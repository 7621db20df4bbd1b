/// What a listening address means for who can reach it.
package enum ListenAddress {
    /// Whether `host` is reachable from this machine only.
    package static func isLoopback(_ host: String) -> Bool {
        host == "127.0.0.1" || host == "::1" || host == "localhost" || host.hasPrefix("127.")
    }
}
