import Foundation
import HTTPTypes
import WellPlateCore

extension HARExporter {
    /// A gRPC call as an ordinary HTTP/2 exchange, as DevTools and mitmproxy show one: `POST` to
    /// the method's URL, the request metadata as headers, the client's messages framed (5-byte
    /// prefix each, uncompressed: the store keeps them inflated) as base64 `postData`, status 200
    /// with the response HEADERS, the server's messages framed as base64 `content`, and the
    /// trailers in `_trailers` (HAR has no place for them). A trailers-only answer has its one
    /// HEADERS block as the response's headers and no `_trailers`, as it went on the wire. Every
    /// message's time and place in the body is in `_grpcMessages`; how the call ended is in the
    /// comment (`gRPC ended: ...`), read back by `cassette import`.
    func grpcEntry(_ call: Conversation) -> HAREntry {
        let heads = call.grpc ?? GRPCCallHeads(responseHeaders: nil, trailers: [:])
        // Message times count from the start as `startedDateTime` states it (milliseconds), so an
        // import gets the recorded offsets back exactly rather than up to a millisecond off.
        let started = Self.timestamp(call.recordedAt)
        let start = HARImporter.date(started)?.timeIntervalSince1970 ?? call.recordedAt.timeIntervalSince1970
        let path = Self.grpcPath(call.url)
        var requestBody = Data()
        var responseBody = Data()
        var messages: [HARGRPCMessage] = []
        for message in call.messages {
            let sent = message.direction == .client
            let time = start + message.offsetMilliseconds / 1000
            guard message.isData else {
                if sent && message.kind == .close { messages.append(HARGRPCMessage(type: "send", time: time, end: true)) }
                continue
            }
            let frame = GRPCFrame(payload: message.payload).encoded
            let json = protoSchema.jsonValue(message.payload, path: path, direction: sent ? .request : .response).map(HARJSON.init)
            messages.append(
                HARGRPCMessage(
                    type: sent ? "send" : "receive", time: time, bodyOffset: sent ? requestBody.count : responseBody.count,
                    size: message.payload.count, json: json))
            if sent { requestBody.append(frame) } else { responseBody.append(frame) }
        }
        let requestType = call.requestHeaders[.contentType] ?? "application/grpc"
        let responseFields = heads.responseHeaders ?? heads.trailers
        let responseType = responseFields[.contentType] ?? requestType
        let version = HARHTTPVersion.text(.http2)
        let url = Self.grpcURL(call, origin: grpcOrigins[call.cassette])
        let (total, timings) = Self.grpcTimings(call)
        return HAREntry(
            startedDateTime: started,
            time: total,
            request: HARRequest(
                method: "POST", url: url, httpVersion: version, cookies: [], headers: Self.grpcPairs(call.requestHeaders), queryString: [],
                postData: HARPostData(mimeType: requestType, text: requestBody.base64EncodedString(), params: nil, encoding: "base64"),
                headersSize: -1, bodySize: requestBody.count),
            response: HARResponse(
                status: 200, statusText: "OK", httpVersion: version, cookies: [], headers: Self.grpcPairs(responseFields),
                content: HARContent(
                    size: responseBody.count, compression: nil, mimeType: responseType, text: responseBody.base64EncodedString(), encoding: "base64"),
                redirectURL: "", headersSize: -1, bodySize: responseBody.count,
                trailers: heads.responseHeaders == nil ? nil : Self.grpcPairs(heads.trailers)),
            timings: timings,
            comment: Self.grpcComment(call, status: heads.trailers[GRPCFields.status], message: heads.trailers[GRPCFields.message]),
            grpcMessages: messages
        )
    }

    /// `gRPC NOT_FOUND "item nope does not exist"; cassette dev, key POST /shop.v1.Catalog/GetItem,
    /// sequence 1, gRPC ended: server closed 5 "..."`: the status first, for viewers that show
    /// the comment; the end as `ConversationEnd.summary` writes it.
    static func grpcComment(_ call: Conversation, status: String?, message: String?) -> String {
        var head = "gRPC " + (status.map(GRPCStatusCode.name(of:)) ?? "without grpc-status")
        if let message, !message.isEmpty { head += " \"\(GRPCMessageText.decode(message))\"" }
        return "\(head); cassette \(call.cassette), key \(call.key), sequence \(call.sequence), gRPC ended: \(call.end.summary)"
    }

    /// HAR's three phases from the call's messages: sending lasts until the client's last message
    /// or half-close, waiting until the server's first message, receiving until its last.
    static func grpcTimings(_ call: Conversation) -> (total: Double, timings: HARTimings) {
        let total = call.messages.last?.offsetMilliseconds ?? 0
        let send = call.messages.last { $0.direction == .client }?.offsetMilliseconds ?? 0
        let firstReply = call.messages.first { $0.direction == .server && $0.isData }?.offsetMilliseconds ?? total
        let wait = max(0, firstReply - send)
        return (total, HARTimings(send: send, wait: wait, receive: max(0, total - send - wait)))
    }

    /// The method's URL: the store keeps a call's path; the origin is the cassette's upstream.
    static func grpcURL(_ call: Conversation, origin: String?) -> String {
        if call.url.hasPrefix("http://") || call.url.hasPrefix("https://") { return call.url }
        var base = origin ?? "http://localhost"
        while base.hasSuffix("/") { base.removeLast() }
        return base + (call.url.hasPrefix("/") ? call.url : "/" + call.url)
    }

    static func grpcPath(_ url: String) -> String {
        URLComponents(string: url).map(\.path).flatMap { $0.isEmpty ? nil : $0 } ?? url
    }

    private static func grpcPairs(_ fields: HTTPFields) -> [HARNameValue] {
        fields.map { HARNameValue(name: $0.name.rawName, value: $0.value) }
    }
}
