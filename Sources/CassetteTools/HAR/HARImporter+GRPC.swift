import Foundation
import HTTPTypes
import WellPlateCore

extension HARImporter {
    /// Whether `entry` is a gRPC call: a request whose `Content-Type` is `application/grpc` (or
    /// `application/grpc+proto`, ...); gRPC-Web (`application/grpc-web`) is ordinary HTTP.
    static func isGRPC(_ entry: HAREntry) -> Bool {
        let type = (entry.request.headers.last { $0.name.lowercased() == "content-type" }?.value ?? entry.request.postData?.mimeType ?? "").lowercased()
        return type.hasPrefix("application/grpc") && !type.hasPrefix("application/grpc-web")
    }

    /// The call of a gRPC entry, stored as the proxy stores a recorded one (a conversation keyed
    /// `POST /package.Service/Method`): the messages cut out of the request body and response
    /// content (base64, each with its 5-byte prefix), timed from `_grpcMessages` when cassette wrote
    /// the file, otherwise the client's at the start and the server's at the end; the response
    /// HEADERS, and the trailers from `_trailers` or, from a tool that merged them into the
    /// headers, the `grpc-*` status fields; a response whose headers carry `grpc-status` and no
    /// messages is trailers-only. Metadata is redacted as the recorder redacts it, messages on
    /// their string fields when `schema` describes them.
    func grpcCall(from entry: HAREntry, warnings: inout [String]) -> Swift.Result<Conversation, Skip> {
        guard let url = URL(string: entry.request.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            return .failure(Skip(reason: "not an http(s) URL"))
        }
        guard entry.response.status == 200 else {
            return .failure(Skip(reason: "a gRPC call answered with HTTP status \(entry.response.status) (gRPC answers 200); not replayable as gRPC"))
        }
        let path = url.path
        guard let requestFrames = Self.frames(entry.request.postData?.text, base64: entry.request.postData?.encoding?.lowercased() == "base64"),
            let responseFrames = Self.frames(entry.response.content.text, base64: entry.response.content.encoding?.lowercased() == "base64")
        else {
            return .failure(Skip(reason: "its body is not gRPC framing in base64 (5-byte length prefixes); export it with bodies as base64"))
        }
        if requestFrames.contains(where: \.compressed) || responseFrames.contains(where: \.compressed) {
            return .failure(
                Skip(reason: "it holds compressed gRPC messages (grpc-encoding), which import cannot inflate; record the call with `cassette record`"))
        }
        let requestHeaders = Self.fields(entry.request.headers, naming: "metadata", warnings: &warnings)
        var responseHeaders: HTTPFields? = Self.fields(entry.response.headers, naming: "metadata", warnings: &warnings)
        var trailers = HTTPFields()
        if let written = entry.response.trailers {
            trailers = Self.fields(written, naming: "metadata", warnings: &warnings)
        } else if responseHeaders?[GRPCFields.status] != nil && responseFrames.isEmpty {
            (trailers, responseHeaders) = (responseHeaders ?? [:], nil)
        } else {
            for name in [GRPCFields.status, GRPCFields.message, GRPCFields.statusDetails] {
                if let value = responseHeaders?[name] {
                    trailers[name] = value
                    responseHeaders?[name] = nil
                }
            }
        }
        if trailers[GRPCFields.status] == nil {
            warnings.append("no grpc-status in the HAR (the tool left the trailers out); imported as OK")
            trailers[GRPCFields.status] = "0"
        }
        let recordedAt = Self.date(entry.startedDateTime) ?? Date()
        let keyer = ReplayKeyer(redactor: redactor, rules: rules, messageSecretShapes: Self.secretShapes)
        var secrets = redactor.secretValues(headers: requestHeaders, learned: keyer.learned)
        let storedRequest = redactor.scrub(redactor.redact(headers: requestHeaders), secrets: secrets)
        let messages = Self.timed(requestFrames, responseFrames, entry: entry, start: recordedAt).map { message in
            var redacted = message
            if message.isData {
                redacted.payload = keyer.redactedGRPCMessage(
                    message.payload, schema: schema, path: path, direction: message.direction == .client ? .request : .response, secrets: &secrets)
            }
            return redacted
        }
        let redactHeaders = { (fields: HTTPFields) in
            let result = redactor.redactCollectingSecrets(responseHeaders: fields, body: Data(), requestSecrets: secrets)
            secrets.formUnion(result.found)
            return result.headerFields
        }
        let heads = GRPCCallHeads(responseHeaders: responseHeaders.map(redactHeaders), trailers: redactHeaders(trailers))
        let status = trailers[GRPCFields.status].flatMap(Int.init)
        let message = trailers[GRPCFields.message].map(GRPCMessageText.decode) ?? ""
        let end = Self.grpcEnd(fromComment: entry.comment) ?? .closed(by: .server, code: status, reason: message)
        let key = RequestKey(method: .post, target: path, headerFields: [:], body: nil, rules: rules).rawValue
        return .success(
            Conversation(
                cassette: cassette, url: path, key: key, requestHeaders: storedRequest, subprotocol: nil, extensions: nil, recordedAt: recordedAt,
                messages: messages, end: end, grpc: heads))
    }

    /// The messages both ways in time order, with the client's half-close: at the times
    /// `_grpcMessages` gives, or (a file of another tool) the request's at the start, its
    /// half-close after them, and the response's when the answer began to arrive.
    private static func timed(_ sent: [GRPCFrame], _ received: [GRPCFrame], entry: HAREntry, start: Date) -> [ConversationMessage] {
        let origin = start.timeIntervalSince1970
        let listedSent = entry.grpcMessages?.count(where: { $0.type == "send" && $0.end != true })
        let listedReceived = entry.grpcMessages?.count(where: { $0.type == "receive" })
        if let listed = entry.grpcMessages, listedSent == sent.count, listedReceived == received.count {
            var (client, server) = (sent.makeIterator(), received.makeIterator())
            return listed.compactMap { item in
                let offset = max(0, (item.time - origin) * 1000)
                if item.type == "send" && item.end == true {
                    return ConversationMessage(direction: .client, kind: .close, payload: Data(), offsetMilliseconds: offset)
                }
                let frame = item.type == "send" ? client.next() : server.next()
                return frame.map {
                    ConversationMessage(direction: item.type == "send" ? .client : .server, kind: .binary, payload: $0.payload, offsetMilliseconds: offset)
                }
            }
        }
        let send = max(0, entry.timings?.send ?? 0)
        let answer = send + max(0, entry.timings?.wait ?? 0)
        var messages = sent.map { ConversationMessage(direction: .client, kind: .binary, payload: $0.payload, offsetMilliseconds: 0) }
        messages.append(ConversationMessage(direction: .client, kind: .close, payload: Data(), offsetMilliseconds: send))
        messages += received.map { ConversationMessage(direction: .server, kind: .binary, payload: $0.payload, offsetMilliseconds: answer) }
        return messages
    }

    /// The gRPC messages of a body; `nil` when it is not whole gRPC framing.
    private static func frames(_ text: String?, base64: Bool) -> [GRPCFrame]? {
        guard let text, !text.isEmpty else { return [] }
        guard base64, let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { return nil }
        var reader = GRPCFrameReader(limit: Int(UInt32.max))
        guard let frames = try? reader.append(data), reader.pendingBytes == 0 else { return nil }
        return frames
    }

    /// The end `cassette export` wrote after `gRPC ended: ` in the comment.
    static func grpcEnd(fromComment comment: String?) -> ConversationEnd? {
        guard let comment, let marker = comment.range(of: "gRPC ended: ") else { return nil }
        return end(fromSummary: String(comment[marker.upperBound...]))
    }
}
