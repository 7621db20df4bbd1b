import CassetteTools
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// Request headers that ask for something before (or instead of) the answer: `Expect:
/// 100-continue` and `Upgrade` (RFC 9110 §10.1.1, §7.8).
enum InterimRequestHeaders {
    /// Whether the request has neither header, as nearly every request does: two scans without
    /// allocating, so the replay hot path skips the checks below.
    static func absent(from head: HTTPRequestHead) -> Bool {
        !head.headers.contains(name: "expect") && !head.headers.contains(name: "upgrade")
    }

    /// Whether the client waits for `100 Continue` before sending its body (curl does for large
    /// uploads, for up to a second).
    static func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        head.version.major == 1 && head.version.minor >= 1
            && head.headers[canonicalForm: "expect"].contains { $0.lowercased() == "100-continue" }
    }

    /// The 417 for an expectation other than `100-continue` (RFC 9110 §10.1.1), which neither the
    /// proxy nor a replayed recording could meet; the 501 for a request to switch protocols, which
    /// the proxy cannot record or replay; `nil` for none, or for `h2c`, which a server may ignore
    /// (`withoutH2CUpgrade`).
    static func refusal(of head: HTTPRequestHead) -> ProxyAnswer? {
        if let unknown = head.headers[canonicalForm: "expect"].first(where: { $0.lowercased() != "100-continue" }) {
            return .error(
                417, code: "expectation_failed",
                message: "cassette meets only Expect: 100-continue, not \"\(unknown)\"; send the request without that expectation")
        }
        let protocols = head.headers[canonicalForm: "upgrade"].map { $0.lowercased() }
        guard !protocols.isEmpty, !protocols.allSatisfy({ $0.hasPrefix("h2c") }) else { return nil }
        if protocols.contains(where: { $0.hasPrefix("websocket") }) {
            return .error(
                501, code: "websocket_unsupported",
                message: "cassette does not record or replay WebSocket connections; connect the WebSocket client to the upstream directly")
        }
        return .error(
            501, code: "upgrade_unsupported",
            message:
                "cassette does not switch protocols (Upgrade: \(protocols.joined(separator: ", "))); send the request without Upgrade, or to the upstream directly"
        )
    }

    /// An `Upgrade: h2c` request answered over HTTP/1.1 as if it had no `Upgrade`: NIO's decoder
    /// stops parsing the connection after an upgrade request, so it is closed after the answer.
    static func withoutH2CUpgrade(_ head: HTTPRequestHead) -> HTTPRequestHead {
        guard head.headers.contains(name: "upgrade") else { return head }
        var head = head
        head.headers.remove(name: "upgrade")
        head.headers.remove(name: "http2-settings")
        head.headers.replaceOrAdd(name: "connection", value: "close")
        return head
    }
}
