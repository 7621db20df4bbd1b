import Foundation
import HTTPTypes
import WellPlateCore

extension HARExporter {
    /// A conversation as Chrome's DevTools writes a WebSocket: the entry of its `101` with
    /// `_resourceType: websocket` and its text and binary messages in `_webSocketMessages`. Pings,
    /// pongs and closes are not listed there (Chrome lists none); how it ended is in the comment.
    func entry(_ conversation: Conversation) -> HAREntry {
        let duration = conversation.messages.last?.offsetMilliseconds ?? 0
        let start = conversation.recordedAt.timeIntervalSince1970
        let messages = conversation.messages.filter(\.isData).map { message in
            HARWebSocketMessage(
                type: message.direction == .client ? "send" : "receive",
                time: start + message.offsetMilliseconds / 1000,
                opcode: message.kind == .text ? 1 : 2,
                data: message.kind == .text ? String(decoding: message.payload, as: UTF8.self) : message.payload.base64EncodedString())
        }
        let url = Self.webSocketURL(conversation.url)
        let query = URLComponents(string: url)?.queryItems ?? []
        var responseHeaders = [HARNameValue(name: "Upgrade", value: "websocket"), HARNameValue(name: "Connection", value: "Upgrade")]
        if let subprotocol = conversation.subprotocol { responseHeaders.append(HARNameValue(name: "Sec-WebSocket-Protocol", value: subprotocol)) }
        if let extensions = conversation.extensions { responseHeaders.append(HARNameValue(name: "Sec-WebSocket-Extensions", value: extensions)) }
        return HAREntry(
            startedDateTime: Self.timestamp(conversation.recordedAt),
            time: duration,
            request: HARRequest(
                method: "GET", url: url, httpVersion: "HTTP/1.1", cookies: [],
                headers: conversation.requestHeaders.map { HARNameValue(name: $0.name.rawName, value: $0.value) },
                queryString: query.map { HARNameValue(name: $0.name, value: $0.value ?? "") }, postData: nil, headersSize: -1, bodySize: 0),
            response: HARResponse(
                status: 101, statusText: "Switching Protocols", httpVersion: "HTTP/1.1", cookies: [], headers: responseHeaders,
                content: HARContent(size: 0, compression: nil, mimeType: "x-unknown", text: "", encoding: nil), redirectURL: "", headersSize: -1,
                bodySize: 0),
            timings: HARTimings(send: 0, wait: 0, receive: duration),
            comment:
                "cassette \(conversation.cassette), key \(conversation.key), sequence \(conversation.sequence), WebSocket ended: \(conversation.end.summary)",
            resourceType: "websocket",
            webSocketMessages: messages
        )
    }

    /// `ws://` and `wss://` for the stored `http://` and `https://`, as Chrome writes a WebSocket's URL.
    static func webSocketURL(_ url: String) -> String {
        if url.hasPrefix("http://") { return "ws://" + url.dropFirst("http://".count) }
        if url.hasPrefix("https://") { return "wss://" + url.dropFirst("https://".count) }
        return url
    }
}
