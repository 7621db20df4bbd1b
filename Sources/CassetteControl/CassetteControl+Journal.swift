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

        /// ``at`` as a `Date`.
        public var date: Date? {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.date(from: at)
        }
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
