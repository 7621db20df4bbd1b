import Foundation

extension CassetteControl {
    /// How the proxy answered a request.
    public enum Source: String, Sendable, Hashable, Codable {
        /// From a recording.
        case hit
        /// Forwarded to the upstream and recorded.
        case recorded
        /// No recording answered it.
        case miss
        /// Forwarded without recording (`--on-miss passthrough`).
        case passthrough
        /// The proxy could not answer it (the upstream failed, a request it refuses).
        case error
    }

    /// One request in a session's journal, its secrets redacted as in the proxy's log.
    public struct JournalEntry: Sendable, Hashable, Codable {
        /// `GET`, `POST`, ...
        public let method: String
        /// `scheme://host[:port]` of the upstream the request was for, on a proxy with several
        /// upstreams or a forward proxy; `nil` on one with a single upstream.
        public let origin: String?
        /// The path as sent, without the query.
        public let path: String
        /// The query as sent, without `?`; `nil` when there was none.
        public let query: String?
        /// The request's key in the cassette; `nil` for a request refused before it had one.
        public let key: String?
        /// The status the proxy answered.
        public let status: Int
        /// How it was answered.
        public let source: Source
        /// The request's place among the session's requests with the same key, from 0: which
        /// recording of a sequence answered it.
        public let position: Int?
        /// When it arrived, in ISO 8601 with milliseconds (`2025-06-15T15:06:40.123Z`).
        public let at: String
        /// How long the proxy took to answer, in milliseconds.
        public let durationMs: Double
        /// The GraphQL operation the request carried (`query GetUser`; `persisted GetUser` for a
        /// hash-only request); `nil` for any other request, and from a proxy that predates it.
        public let operation: String?
        /// For a WebSocket handshake answered `101`: the conversation, as it was when the journal
        /// was read; `nil` for any other request, and from a proxy that predates it.
        public let webSocket: WebSocketConversation?
        /// For a gRPC call: its method and how it ended; `nil` for any other request, and from a
        /// proxy that predates it. The entry's ``method`` is `POST`, its ``status`` 200 (gRPC's
        /// own status is here), and its ``source`` ``Source/miss`` when no recording answered it.
        public let grpc: GRPCCall?

        /// ``at`` as a `Date`.
        public var date: Date? {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.date(from: at)
        }
    }

    /// A gRPC call in a session's journal.
    public struct GRPCCall: Sendable, Hashable, Codable {
        /// The method's path: `/shop.v1.Catalog/GetItem`.
        public let method: String
        /// Its `grpc-status` by name: `OK`, `NOT_FOUND`, `UNIMPLEMENTED`...
        public let status: String
        /// Its `grpc-message`; `nil` when it had none.
        public let message: String?
    }

    /// A WebSocket conversation in a session's journal. A conversation that missed has the
    /// entry's ``JournalEntry/source`` ``Source/miss``.
    public struct WebSocketConversation: Sendable, Hashable, Codable {
        /// Text and binary messages the client sent.
        public let sent: Int
        /// Text and binary messages the client received.
        public let received: Int
        /// The client's messages that matched the recording, on replay.
        public let matched: Int
        /// The client's message that was not the recorded one (the proxy closed with 1008);
        /// `nil` when there was none.
        public let missed: WebSocketMiss?
        /// How it ended, as `cassette list` says it (`server closed 4000 "bye"`, `client dropped`,
        /// `cut`); `nil` while it is open.
        public let end: String?
        /// The operations the client opened on it, in order, named as `cassette list` names them
        /// (`subscription Countdown`, `rpc add`, `event add`); empty for other protocols, and
        /// `nil` from a proxy that does not report them.
        public let operations: [String]?
    }

    /// A WebSocket client message that was not the recorded one.
    public struct WebSocketMiss: Sendable, Hashable, Codable {
        /// The recorded message expected next: its kind and the start of its payload.
        public let expected: String
        /// The client's message: its kind and the start of its payload.
        public let received: String
    }

    /// What a session served, as it ended.
    public struct Summary: Sendable, Hashable, Codable {
        /// Requests answered from recordings or the upstream.
        public let served: Int
        /// Requests recorded.
        public let recorded: Int
        /// Each key that found no recording.
        public let missed: [Miss]
        /// Keys of the cassette the session never used.
        public let unused: [String]
    }

    /// A key that found no recording, with the recordings that came nearest.
    public struct Miss: Sendable, Hashable, Codable {
        /// The request's key.
        public let key: String
        /// How many requests missed with it.
        public let count: Int
        /// What was asked, where the proxy looked and what came nearest.
        public let message: String
        /// The nearest recordings, best first.
        public let nearest: [Nearest]
    }

    /// A recording near a missed request, and what differs.
    public struct Nearest: Sendable, Hashable, Codable {
        /// The recording's key.
        public let key: String
        /// What differs, such as `path /api/usres vs /api/users`.
        public let differences: [String]
    }
}
