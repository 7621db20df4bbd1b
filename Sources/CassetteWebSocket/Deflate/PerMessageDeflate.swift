import CassetteKernel
import CassetteServing
import NIOHTTP1

/// permessage-deflate (RFC 7692) as one handshake agreed it. The proxy takes part in it twice:
/// on replay it is the server and answers each client's offer afresh (`accepting(_:)`); when it
/// records or passes a conversation through, the client's offers go to the upstream unchanged
/// (`forwardedOffers(_:)`) and the upstream's answer back to the client, so frames are relayed
/// as they came and the proxy inflates a copy of each message for the store.
///
/// Negotiated here rather than by hummingbird's `WSCompression`: that extension is driven only by
/// its own async WebSocket handler (its context cannot be made outside it), while the proxy's
/// frames go through NIO channel handlers. Both compress with compress-nio's zlib streams.
package struct PerMessageDeflate: Equatable, Sendable {
    package static let name = "permessage-deflate"

    package var serverNoContextTakeover = false
    package var clientNoContextTakeover = false
    /// `server_max_window_bits`: in an offer, the largest window the client lets the server use.
    package var serverMaxWindowBits: Int?
    /// `client_max_window_bits`: in an offer, `0` stands for the parameter without a value.
    package var clientMaxWindowBits: Int?

    /// One extension element (`permessage-deflate; server_max_window_bits=10`); `nil` when it
    /// names another extension or breaks RFC 7692 §7.1 (an unknown or repeated parameter, a
    /// window outside 8...15), which the RFC says to decline.
    package init?(element: Substring) {
        var parts = element.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == Self.name else { return nil }
        parts.removeFirst()
        var seen = Set<String>()
        for part in parts {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = pair[0].lowercased()
            guard !name.isEmpty, seen.insert(name).inserted else { return nil }
            let value = pair.count > 1 ? Self.unquoted(pair[1]) : nil
            switch name {
            case "server_no_context_takeover":
                guard value == nil else { return nil }
                serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard value == nil else { return nil }
                clientNoContextTakeover = true
            case "server_max_window_bits":
                guard let bits = value.flatMap(Self.windowBits) else { return nil }
                serverMaxWindowBits = bits
            case "client_max_window_bits":
                if let value {
                    guard let bits = Self.windowBits(value) else { return nil }
                    clientMaxWindowBits = bits
                } else {
                    clientMaxWindowBits = 0
                }
            default:
                return nil
            }
        }
    }

    package init() {}

    /// The permessage-deflate elements of `Sec-WebSocket-Extensions`, in their order, as written.
    package static func elements(in headers: HTTPHeaders) -> [Substring] {
        headers[canonicalForm: "sec-websocket-extensions"].filter {
            $0.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased() == name
        }
    }

    /// The client's offers that go to the upstream: its valid permessage-deflate ones only, as it
    /// wrote them, since the proxy must understand whatever the upstream agrees to.
    package static func forwardedOffers(_ headers: HTTPHeaders) -> String? {
        let offers = elements(in: headers).filter { PerMessageDeflate(element: $0) != nil }
        return offers.isEmpty ? nil : offers.joined(separator: ", ")
    }

    /// What the proxy, as the server, agrees to for the client's first offer it can honour; `nil`
    /// when the client offered none. A `server_max_window_bits` of 8 is declined: zlib's raw
    /// deflate cannot use a window that small.
    package static func accepting(_ headers: HTTPHeaders) -> PerMessageDeflate? {
        for element in elements(in: headers) {
            guard let offer = PerMessageDeflate(element: element), offer.serverMaxWindowBits != 8 else { continue }
            var agreed = PerMessageDeflate()
            agreed.serverNoContextTakeover = offer.serverNoContextTakeover
            agreed.serverMaxWindowBits = offer.serverMaxWindowBits
            return agreed
        }
        return nil
    }

    /// An upstream's `101` answer: the agreement, `nil` when it agreed to none. Throws when it
    /// names anything the proxy cannot follow (another extension, or a malformed element).
    package static func agreed(in headers: HTTPHeaders) throws -> PerMessageDeflate? {
        let values = headers[canonicalForm: "sec-websocket-extensions"].map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let first = values.first else { return nil }
        guard values.count == 1, let agreed = PerMessageDeflate(element: first[...]), agreed.clientMaxWindowBits != 0 else {
            throw UpstreamWebSocketError.unknownExtensions(values.joined(separator: ", "))
        }
        return agreed
    }

    /// The `Sec-WebSocket-Extensions` value of an answer.
    package var responseHeader: String {
        var header = Self.name
        if serverNoContextTakeover { header += "; server_no_context_takeover" }
        if clientNoContextTakeover { header += "; client_no_context_takeover" }
        if let serverMaxWindowBits { header += "; server_max_window_bits=\(serverMaxWindowBits)" }
        if let clientMaxWindowBits, clientMaxWindowBits > 0 { header += "; client_max_window_bits=\(clientMaxWindowBits)" }
        return header
    }

    private static func unquoted(_ value: String) -> String {
        value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") ? String(value.dropFirst().dropLast()) : value
    }

    /// RFC 7692 §7.1.2: a decimal 8...15 without leading zeros.
    private static func windowBits(_ value: String) -> Int? {
        guard let bits = Int(value), (8...15).contains(bits), String(bits) == value else { return nil }
        return bits
    }
}
