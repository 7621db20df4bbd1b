import NIOCore
import NIOHTTP1
import WellPlateCore

/// Request headers that ask for something before (or instead of) the answer: `Expect:
/// 100-continue` and `Upgrade` (RFC 9110 §10.1.1, §7.8).
package enum InterimRequestHeaders {
    /// Whether the request has neither header, as nearly every request does: two scans without
    /// allocating, so the replay hot path skips the checks below.
    package static func absent(from head: HTTPRequestHead) -> Bool {
        !head.headers.contains(name: "expect") && !head.headers.contains(name: "upgrade")
    }

    /// Whether the client waits for `100 Continue` before sending its body (curl does for large
    /// uploads, for up to a second).
    package static func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        head.version.major == 1 && head.version.minor >= 1
            && head.headers[canonicalForm: "expect"].contains { $0.lowercased() == "100-continue" }
    }

    /// What the proxy makes of a request's interim headers, decided once when its head arrives.
    package enum Decision: Equatable, Sendable {
        /// Go on (an `h2c` upgrade is answered over HTTP/1.1: `withoutH2CUpgrade`).
        case proceed
        /// An expectation other than `100-continue` (RFC 9110 §10.1.1), which neither the proxy
        /// nor a replayed recording could meet: 417.
        case unmetExpectation(String)
        /// A protocol switch that no upgrader of the pipeline's `ProtocolSwitches` took: 501.
        case unsupportedUpgrade([String])
    }

    /// The decision for `head`; `h2c`, which a server may ignore, is never refused, nor is
    /// `websocket` where `webSocketsOverHTTP` (its upgrader declined it: it is an HTTP request).
    package static func decision(for head: HTTPRequestHead, webSocketsOverHTTP: Bool = false) -> Decision {
        if let unknown = head.headers[canonicalForm: "expect"].first(where: { $0.lowercased() != "100-continue" }) {
            return .unmetExpectation(String(unknown))
        }
        let protocols = head.headers[canonicalForm: "upgrade"].map { $0.lowercased() }
        guard !protocols.isEmpty, !protocols.allSatisfy({ $0.hasPrefix("h2c") || (webSocketsOverHTTP && $0.hasPrefix("websocket")) }) else {
            return .proceed
        }
        return .unsupportedUpgrade(protocols)
    }

    /// The answer to a refusing decision.
    package static func refusal(_ decision: Decision) -> ProxyAnswer? {
        switch decision {
        case .proceed:
            return nil
        case .unmetExpectation(let unknown):
            return .error(
                417, code: "expectation_failed",
                message: "cassette meets only Expect: 100-continue, not \"\(unknown)\"; send the request without that expectation")
        case .unsupportedUpgrade(let protocols) where protocols.contains(where: { $0.hasPrefix("websocket") }):
            return .error(
                501, code: "websocket_unsupported",
                message: "cassette does not record or replay WebSocket connections; connect the WebSocket client to the upstream directly")
        case .unsupportedUpgrade(let protocols):
            return .error(
                501, code: "upgrade_unsupported",
                message:
                    "cassette does not switch protocols (Upgrade: \(protocols.joined(separator: ", "))); send the request without Upgrade, or to the upstream directly"
            )
        }
    }

    /// An `Upgrade: h2c` request answered over HTTP/1.1 as if it had no `Upgrade`: NIO's decoder
    /// stops parsing the connection after an upgrade request, so it is closed after the answer.
    /// `orWebSocket`: a declined WebSocket handshake too.
    package static func withoutH2CUpgrade(_ head: HTTPRequestHead, orWebSocket: Bool = false) -> HTTPRequestHead {
        guard head.headers.contains(name: "upgrade") else { return head }
        var head = head
        head.headers.remove(name: "upgrade")
        head.headers.remove(name: "http2-settings")
        head.headers.replaceOrAdd(name: "connection", value: "close")
        return head
    }
}
