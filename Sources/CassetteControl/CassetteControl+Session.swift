import Foundation

extension CassetteControl {
    /// One live session: a cassette served on a port of its own, with its own mode, sequence
    /// positions and journal.
    public struct Session: Sendable, Identifiable {
        struct Info: Codable, Sendable {
            let id: String
            let baseURL: URL
            let listeners: [Listener]?
            let cassette: String?
            let mode: Mode?
        }

        /// One of the session's listeners: a proxy with several upstreams (`--upstream` given
        /// twice) gives each session one per upstream, in the proxy's order.
        public struct Listener: Codable, Sendable, Hashable {
            /// The upstream it stands in for, as the proxy was given it (credentials redacted);
            /// `nil` when the cassette does not say where it was recorded from.
            public let upstream: String?
            /// `http://HOST:PORT` of this listener.
            public let baseURL: URL
        }

        /// The session's id, for `X-Cassette-Session` and the proxy's endpoints.
        public let id: String
        /// Where the app sends its requests: `http://HOST:PORT` of the session's own listener.
        /// A client that cannot change its base URL can send `X-Cassette-Session: ID` to the
        /// proxy's main port instead.
        public let baseURL: URL
        /// Every listener of the session, one per upstream of the proxy; the first is at
        /// ``baseURL``.
        public let listeners: [Listener]
        /// The cassette the session serves.
        public let cassette: String
        /// The mode it was opened in (`none` on a proxy that records its misses opens as `missing`).
        public let mode: Mode?
        let http: ControlHTTP

        init(info: Info, http: ControlHTTP) {
            id = info.id
            baseURL = info.baseURL
            listeners = info.listeners ?? [Listener(upstream: nil, baseURL: info.baseURL)]
            cassette = info.cassette ?? ""
            mode = info.mode
            self.http = http
        }

        /// Where the app sends the requests it would send to `upstream` (its scheme, host and
        /// port are compared): the session's listener for that host, `nil` for a host the proxy
        /// does not stand in for.
        public func baseURL(for upstream: URL) -> URL? {
            func origin(_ url: URL) -> String? {
                guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
                let port = url.port ?? (scheme == "https" ? 443 : 80)
                return "\(scheme)://\(host):\(port)"
            }
            guard let wanted = origin(upstream) else { return nil }
            return listeners.first { $0.upstream.flatMap(URL.init(string:)).flatMap(origin) == wanted }?.baseURL
        }

        private var path: String {
            "/__cassette/sessions/" + (id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? id)
        }

        /// The requests the session answered, in arrival order; `method`, `path` (exact, or a
        /// prefix when it ends in `*`) and `host` (a name, or name:port) narrow them.
        public func requests(method: String? = nil, path requestPath: String? = nil, host: String? = nil) async throws -> [JournalEntry] {
            struct Journal: Decodable {
                let requests: [JournalEntry]
            }
            var query: [URLQueryItem] = []
            if let method { query.append(URLQueryItem(name: "method", value: method)) }
            if let requestPath { query.append(URLQueryItem(name: "path", value: requestPath)) }
            if let host { query.append(URLQueryItem(name: "host", value: host)) }
            let journal: Journal = try await http.call("GET", path + "/requests", query: query)
            return journal.requests
        }

        /// Empties the journal and starts every sequence again.
        public func reset() async throws {
            let _: Info = try await http.call("POST", path + "/reset")
        }

        /// Ends the session: its listener closes once requests in flight are answered. Returns
        /// what it served. With `strict`, a request that had no recording throws
        /// ``CassetteControlError`` listing the misses; with `failOnUnused`, so do recordings the
        /// session never used.
        @discardableResult
        public func end(strict: Bool = true, failOnUnused: Bool = false) async throws -> Summary {
            let query = [URLQueryItem(name: "strict", value: strict ? "true" : "false")]
            let summary: Summary = try await http.call("DELETE", path, query: query, expecting: [200, 409])
            if strict && !summary.missed.isEmpty {
                throw CassetteControlError.misses(summary, session: id, cassette: cassette, includingUnused: failOnUnused)
            }
            if failOnUnused && !summary.unused.isEmpty {
                throw CassetteControlError.misses(summary, session: id, cassette: cassette, includingUnused: true)
            }
            return summary
        }
    }
}
