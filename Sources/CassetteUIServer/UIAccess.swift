import CassetteKernel
import Foundation
import NIOHTTP1

/// Who may see the UI. On loopback, anyone on the machine (as with the proxy itself). Bound to
/// any other address, only a client that shows the token made at start, from every address,
/// loopback included: in the URL printed once (`?token=…`), after which the page keeps it in a
/// cookie scoped to the UI's path.
package struct UIAccess: Sendable, Equatable {
    /// `nil`: no token needed.
    package let token: String?

    package static let cookieName = "cassette_ui_token"

    /// The access for a UI bound to `host`: a fresh random token unless `host` is loopback.
    package static func forHost(_ host: String) -> UIAccess {
        ListenAddress.isLoopback(host) ? UIAccess(token: nil) : UIAccess(token: makeToken())
    }

    package init(token: String?) {
        self.token = token
    }

    /// 128 random bits, hex: what a client must show.
    package static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// `?token=…` for the URL to print; empty when none is needed.
    package var query: String { token.map { "?token=\($0)" } ?? "" }

    /// Whether the request shows the token (in its query or the UI's cookie), or none is needed.
    package func allows(_ head: HTTPRequestHead, queryToken: String?) -> Bool {
        guard let token else { return true }
        if let queryToken, Self.same(queryToken, token) { return true }
        for cookies in head.headers["cookie"] {
            for pair in cookies.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0] == Self.cookieName, Self.same(parts[1], token) { return true }
            }
        }
        return false
    }

    /// `Set-Cookie` for a request that showed the token in its URL, so the page's own requests
    /// (its script, its data, the event stream) carry it.
    package func cookie(path: String) -> String? {
        token.map { "\(Self.cookieName)=\($0); Path=\(path); HttpOnly; SameSite=Strict" }
    }

    /// Compares without stopping at the first difference, so timing says nothing of the token.
    private static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
