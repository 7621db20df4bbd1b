import Foundation
import HTTPTypes

/// One recorded WebSocket connection: its handshake, keyed like an HTTP request (`GET` and the
/// normalized URL; the origin on a multi-host cassette), its messages in order, and how it ended.
package struct Conversation: Sendable, Equatable {
    /// The row id, once stored.
    package var id: Int64?
    package var cassette: String
    /// The handshake's URL, redacted as a request's is.
    package var url: String
    /// The handshake's key (`GET` and its target), as an HTTP request with the same target keys.
    package var key: String
    /// Its position among the conversations of the same key (repeated connections).
    package var sequence: Int
    /// The handshake's request headers, redacted as a request's are.
    package var requestHeaders: HTTPFields
    /// The subprotocol the upstream chose (`Sec-WebSocket-Protocol` of its `101`).
    package var subprotocol: String?
    /// The extensions the upstream agreed to (`Sec-WebSocket-Extensions` of its `101`).
    package var extensions: String?
    package var recordedAt: Date
    package var messages: [ConversationMessage]
    /// How it ended; `.cut` until its end is known, so a recorder that dies leaves it marked.
    package var end: ConversationEnd
    /// A gRPC call's response HEADERS and trailers; `nil` for a WebSocket conversation.
    package var grpc: GRPCCallHeads?

    package init(
        id: Int64? = nil, cassette: String, url: String, key: String, sequence: Int = 0, requestHeaders: HTTPFields, subprotocol: String?,
        extensions: String?, recordedAt: Date = Date(), messages: [ConversationMessage] = [], end: ConversationEnd = .cut,
        grpc: GRPCCallHeads? = nil
    ) {
        self.grpc = grpc
        self.id = id
        self.cassette = cassette
        self.url = url
        self.key = key
        self.sequence = sequence
        self.requestHeaders = requestHeaders
        self.subprotocol = subprotocol
        self.extensions = extensions
        self.recordedAt = recordedAt
        self.messages = messages
        self.end = end
    }
}

/// What a gRPC call has beside its messages: the response HEADERS (`nil` when none came: a
/// trailers-only answer, or a call cut before its answer) and the trailers (`grpc-status`,
/// `grpc-message`, `grpc-status-details-bin` and custom trailing metadata), as the upstream sent them.
package struct GRPCCallHeads: Sendable, Equatable {
    package var responseHeaders: HTTPFields?
    package var trailers: HTTPFields
    /// When the upstream reset the call's stream (RST_STREAM), in milliseconds since the call
    /// opened, as a message's offset is: a replay with recorded timing ends the call then.
    /// `nil` for a call that ended otherwise, and for one stored before it was recorded.
    package var endOffsetMilliseconds: Double?

    package init(responseHeaders: HTTPFields?, trailers: HTTPFields, endOffsetMilliseconds: Double? = nil) {
        self.responseHeaders = responseHeaders
        self.trailers = trailers
        self.endOffsetMilliseconds = endOffsetMilliseconds
    }

    /// Whether the answer was trailers only (one HEADERS frame ending the stream).
    package var isTrailersOnly: Bool { responseHeaders == nil }
}

/// Which side of a conversation sent a message or ended it.
package enum ConversationSide: String, Sendable, Equatable {
    case client, server
}

/// One message of a conversation: a whole text or binary message (its fragments joined), or a
/// control frame.
package struct ConversationMessage: Sendable, Equatable {
    package enum Kind: String, Sendable, Equatable {
        case text, binary, ping, pong, close
    }

    package var direction: ConversationSide
    package var kind: Kind
    /// Unmasked, fragments joined.
    package var payload: Data
    /// The sizes of the frames it came in; one element for an unfragmented message.
    package var fragments: [Int]
    /// Milliseconds since the connection opened.
    package var offsetMilliseconds: Double

    package init(direction: ConversationSide, kind: Kind, payload: Data, fragments: [Int]? = nil, offsetMilliseconds: Double) {
        self.direction = direction
        self.kind = kind
        self.payload = payload
        self.fragments = fragments ?? [payload.count]
        self.offsetMilliseconds = offsetMilliseconds
    }

    /// Whether it carries application data (text or binary), which replay matches and answers.
    package var isData: Bool { kind == .text || kind == .binary }

    /// A short printable form of the payload for listings and close reasons.
    package func preview(limit: Int = 60) -> String {
        switch kind {
        case .text, .ping, .pong:
            let text = String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "\n", with: "\\n")
            return text.count > limit ? String(text.prefix(limit)) + "…" : text
        case .binary:
            return "\(payload.count) bytes: " + payload.prefix(min(16, limit / 3)).map { String(format: "%02x", $0) }.joined()
        case .close:
            let code = payload.count >= 2 ? Int(payload[payload.startIndex]) << 8 | Int(payload[payload.startIndex + 1]) : nil
            let reason = payload.count > 2 ? String(decoding: payload.dropFirst(2), as: UTF8.self) : ""
            return code.map { "\($0) \(reason)" } ?? "no code"
        }
    }
}

/// How a conversation ended.
package enum ConversationEnd: Sendable, Equatable {
    /// A close frame was sent by `by` with `code` and `reason` (code `nil`: a close without one).
    case closed(by: ConversationSide, code: Int?, reason: String)
    /// `by`'s connection went away without a close frame; with `reset`, `by` reset the call's
    /// HTTP/2 stream with that RST_STREAM code (a gRPC call), the connection going on.
    case dropped(by: ConversationSide, reset: HTTP2ResetCode? = nil)
    /// The recorder stopped first (SIGTERM, a crash): what was received is kept.
    case cut

    /// `closed`, `dropped` or `cut`, as stored.
    var storedKind: String {
        switch self {
        case .closed: "closed"
        case .dropped: "dropped"
        case .cut: "cut"
        }
    }

    /// How listings name it: `server closed 4000 "bye"`, `client dropped`, `server reset
    /// INTERNAL_ERROR`, `cut`.
    package var summary: String {
        switch self {
        case .closed(let by, let code, let reason):
            "\(by.rawValue) closed" + (code.map { " \($0)" } ?? "") + (reason.isEmpty ? "" : " \"\(reason)\"")
        case .dropped(let by, let reset): reset.map { "\(by.rawValue) reset \($0.name)" } ?? "\(by.rawValue) dropped"
        case .cut: "cut"
        }
    }
}
