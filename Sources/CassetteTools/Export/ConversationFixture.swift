import Foundation
import WellPlateCore

/// A recorded WebSocket conversation as a fixture file a test can read (`export --fixtures`
/// writes one per conversation under `websocket/`): the handshake, every message in order with
/// its direction, kind, offset and payload (text as is, binary base64), and how it ended.
/// Payloads are as stored, so redacted at recording.
package struct ConversationFixture: Codable, Sendable, Equatable {
    package struct Header: Codable, Sendable, Equatable {
        package var name: String
        package var value: String
    }

    package struct Message: Codable, Sendable, Equatable {
        /// `client` (sent to the server) or `server`.
        package var direction: String
        /// `text`, `binary`, `ping`, `pong` or `close`.
        package var kind: String
        /// Milliseconds since the connection opened.
        package var offsetMilliseconds: Double
        /// The payload of a text, ping, pong or close message when it is UTF-8.
        package var text: String?
        /// The payload in base64 otherwise (binary messages, other bytes).
        package var base64: String?
        /// The sizes of the frames it came in, when there were several.
        package var fragments: [Int]?
    }

    package struct End: Codable, Sendable, Equatable {
        /// `closed`, `dropped` (the connection went away without a close frame) or `cut` (the
        /// recorder stopped first).
        package var kind: String
        /// Who closed or dropped it.
        package var by: String?
        package var code: Int?
        package var reason: String?

        package init(kind: String, by: String? = nil, code: Int? = nil, reason: String? = nil) {
            self.kind = kind
            self.by = by
            self.code = code
            self.reason = reason
        }
    }

    /// The handshake's URL, `ws://` or `wss://`.
    package var url: String
    package var key: String
    package var sequence: Int
    package var subprotocol: String?
    package var extensions: String?
    package var requestHeaders: [Header]
    package var messages: [Message]
    package var end: End

    package init(_ conversation: Conversation) {
        url = HARExporter.webSocketURL(conversation.url)
        key = conversation.key
        sequence = conversation.sequence
        subprotocol = conversation.subprotocol
        extensions = conversation.extensions
        requestHeaders = conversation.requestHeaders.map { Header(name: $0.name.rawName, value: $0.value) }
        messages = conversation.messages.map { message in
            let text = message.kind == .binary ? nil : String(validating: message.payload, as: UTF8.self)
            return Message(
                direction: message.direction.rawValue, kind: message.kind.rawValue, offsetMilliseconds: message.offsetMilliseconds, text: text,
                base64: text == nil ? message.payload.base64EncodedString() : nil, fragments: message.fragments.count > 1 ? message.fragments : nil)
        }
        switch conversation.end {
        case .closed(let by, let code, let reason): end = End(kind: "closed", by: by.rawValue, code: code, reason: reason)
        case .dropped(let by, let reset): end = End(kind: "dropped", by: by.rawValue, reason: reset.map { "RST_STREAM \($0.name)" })
        case .cut: end = End(kind: "cut")
        }
    }

    /// Whether `value` is a conversation as `export --fixtures` writes it (every field this type
    /// has), not a response: a drift check leaves it out rather than call it a fixture that no
    /// recording matches.
    package static func describes(_ value: JSONValue) -> Bool {
        guard let object = value.objectValue, object["messages"]?.arrayValue != nil, object["end"]?.objectValue != nil else { return false }
        return (try? JSONDecoder().decode(ConversationFixture.self, from: Data(value.compactJSON.utf8))) != nil
    }

    /// Pretty-printed JSON with sorted keys and a final newline, as every fixture.
    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// The file names of `conversations` under `websocket/`, in their order: the handshake's
    /// path (and host, on a multi-host cassette) with `/` as `_` (`websocket/chat.json`), `_2`,
    /// `_3`, … for repeated connections to the same name.
    package static func fileNames(_ conversations: [Conversation]) -> [String] {
        var taken: [String: Int] = [:]
        return conversations.map { conversation in
            let base = baseName(conversation)
            let count = taken[base, default: 0] + 1
            taken[base] = count
            return "websocket/" + base + (count == 1 ? "" : "_\(count)") + ".json"
        }
    }

    private static func baseName(_ conversation: Conversation) -> String {
        // The key is `GET /path` or, on a multi-host cassette, `GET http://host:port/path`.
        let target = conversation.key.split(separator: " ", maxSplits: 1).last.map(String.init) ?? conversation.key
        let withoutScheme = target.replacingOccurrences(of: "https://", with: "").replacingOccurrences(of: "http://", with: "")
        let pathOnly = withoutScheme.split(separator: "?", maxSplits: 1).first.map(String.init) ?? withoutScheme
        let words = pathOnly.split { !($0.isLetter || $0.isNumber || $0 == "-") }.map(String.init)
        return words.isEmpty ? "root" : words.joined(separator: "_")
    }
}
