import Foundation
import HTTPTypes
import WellPlateCore

extension HARImporter {
    /// Whether `entry` is a WebSocket as Chrome and mitmproxy write one: `_webSocketMessages`,
    /// or `_resourceType: websocket` on a `101`.
    static func isWebSocket(_ entry: HAREntry) -> Bool {
        entry.webSocketMessages != nil || (entry.resourceType == "websocket" && entry.response.status == 101)
    }

    /// The conversation of a WebSocket entry, keyed and redacted as the proxy would have stored
    /// it (secret JSON fields, the handshake's secrets, and the token shapes `cassette audit`
    /// knows, which the recorder replaces too): text messages (opcode 1) as they are, binary ones (opcode 2) from base64, other opcodes
    /// left out; offsets from the entry's start. How it ended comes from the comment `cassette
    /// export` writes (`WebSocket ended: server closed 4000 "bye"`); a browser's entry has none,
    /// and its conversation is marked `cut`.
    func conversation(from entry: HAREntry, warnings: inout [String]) -> Conversation? {
        guard let url = URL(string: Self.httpURL(entry.request.url)), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else { return nil }
        var headers = HTTPFields()
        for pair in entry.request.headers where !pair.name.hasPrefix(":") {
            if let name = HTTPField.Name(pair.name) { headers.append(HTTPField(name: name, value: pair.value)) }
        }
        let recordedAt = Self.date(entry.startedDateTime) ?? Date()
        let handshake = Interaction(
            cassette: cassette, method: .get, url: url.absoluteString, key: "", requestHeaders: headers, statusCode: 101, recordedAt: recordedAt
        ).redactedForStorage(by: redactor, rules: rules)
        var secrets = redactor.secretValues(url: url, headerFields: headers, body: nil)
        var messages: [ConversationMessage] = []
        var skipped = 0
        for message in entry.webSocketMessages ?? [] {
            let payload: Data
            switch message.opcode {
            case 1: payload = Data(message.data.utf8)
            case 2:
                guard let decoded = Data(base64Encoded: message.data, options: .ignoreUnknownCharacters) else {
                    skipped += 1
                    continue
                }
                payload = decoded
            default:
                skipped += 1
                continue
            }
            for value in Self.secretShapes.find(payload) { secrets.insert(value) }
            messages.append(
                ConversationMessage(
                    direction: message.type == "send" ? .client : .server, kind: message.opcode == 1 ? .text : .binary,
                    payload: redactor.redactedMessage(payload, secrets: &secrets),
                    offsetMilliseconds: max(0, (message.time - recordedAt.timeIntervalSince1970) * 1000)))
        }
        if skipped > 0 {
            warnings.append("\(Formatting.count(skipped, "WebSocket message")) with an opcode other than text or binary, or bad base64, left out")
        }
        let header = { (name: String) in entry.response.headers.last { $0.name.lowercased() == name }?.value }
        return Conversation(
            cassette: cassette, url: handshake.url, key: handshake.key, requestHeaders: handshake.requestHeaders,
            subprotocol: header("sec-websocket-protocol"), extensions: header("sec-websocket-extensions"), recordedAt: recordedAt,
            messages: messages, end: Self.end(fromComment: entry.comment))
    }

    /// The recorder's scanner of credential shapes (the command hands the proxy the same one).
    static let secretShapes = MessageSecretShapes(SecretAudit.shapedSecrets(in:))

    /// `http://` and `https://` for a WebSocket's `ws://` and `wss://`, as the store keys it.
    static func httpURL(_ url: String) -> String {
        if url.hasPrefix("ws://") { return "http://" + url.dropFirst("ws://".count) }
        if url.hasPrefix("wss://") { return "https://" + url.dropFirst("wss://".count) }
        return url
    }

    /// The end `ConversationEnd.summary` wrote after `WebSocket ended: ` in the comment; `cut` without one.
    static func end(fromComment comment: String?) -> ConversationEnd {
        guard let comment, let marker = comment.range(of: "WebSocket ended: ") else { return .cut }
        return end(fromSummary: String(comment[marker.upperBound...]))
    }

    /// The end `ConversationEnd.summary` wrote (`server closed 4000 "bye"`, `server reset
    /// INTERNAL_ERROR`, `cut`); `cut` for anything else.
    static func end(fromSummary summary: String) -> ConversationEnd {
        let words = summary.split(separator: " ", maxSplits: 2).map(String.init)
        guard words.count >= 2, let side = ConversationSide(rawValue: words[0]) else { return .cut }
        switch words[1] {
        case "dropped":
            return .dropped(by: side)
        case "reset":
            return .dropped(by: side, reset: words.count > 2 ? HTTP2ResetCode(name: words[2]) : nil)
        case "closed":
            let rest = words.count > 2 ? words[2] : ""
            let parts = rest.split(separator: " ", maxSplits: 1).map(String.init)
            let code = parts.first.flatMap(Int.init)
            var reason = code == nil ? rest : (parts.count > 1 ? parts[1] : "")
            if reason.hasPrefix("\""), reason.hasSuffix("\""), reason.count >= 2 { reason = String(reason.dropFirst().dropLast()) }
            return .closed(by: side, code: code, reason: reason)
        default:
            return .cut
        }
    }
}
