import Foundation

/// An upstream's host as sockets and SNI take it (`::1`, never `[::1]`) and the authority that
/// `Host` and `:authority` carry (`[::1]:8080`): an IPv6 address is bracketed in the one and not
/// in the other (RFC 3986 §3.2.2), and Foundation's `URL.host` gives it without brackets.
package struct UpstreamAuthority: Sendable, Equatable {
    /// Without brackets.
    package let host: String
    /// The URL's port, `nil` when it names none (the scheme's default applies).
    package let port: Int?

    /// `nil` for a URL without a host.
    package init?(_ url: URL) {
        guard var host = url.host(percentEncoded: false), !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        port = url.port
    }

    /// `host[:port]` with an IPv6 address in brackets; the port only when the URL named one.
    package var authority: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(bracketed):\($0)" } ?? bracketed
    }

    /// `host:port` with an IPv6 address in brackets, `port` standing in for a missing one.
    package func authority(defaultPort: Int) -> String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(bracketed):\(port ?? defaultPort)"
    }
}
