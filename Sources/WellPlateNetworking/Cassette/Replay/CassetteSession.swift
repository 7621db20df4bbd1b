import Foundation
import HTTPTypes
import Synchronization

/// One cassette opened for record or replay: the single policy that decides, for every request,
/// whether to answer from the recording or forward it upstream and record the answer. Used by
/// `RecordingTransport`, `ReplayTransport`, `ReplayAPIClient` and the `cassette` proxy alike.
public final class CassetteSession: Sendable {
    public struct Options: Sendable {
        public var cassette: String
        public var mode: RecordMode
        /// `nil` uses the rules the cassette was recorded with (or the defaults for a new cassette).
        public var matchingRules: MatchingRules?
        public var redactor: Redactor
        public var sequencePolicy: SequencePolicy
        /// Remembered with the cassette so replay knows what it stood in for.
        public var upstream: URL?

        public init(
            cassette: String = "dev",
            mode: RecordMode = .none,
            matchingRules: MatchingRules? = nil,
            redactor: Redactor = .default,
            sequencePolicy: SequencePolicy = .repeatLast,
            upstream: URL? = nil
        ) {
            self.cassette = cassette
            self.mode = mode
            self.matchingRules = matchingRules
            self.redactor = redactor
            self.sequencePolicy = sequencePolicy
            self.upstream = upstream
        }
    }

    /// How a request was answered.
    public enum Outcome: String, Sendable {
        case replayed
        case recorded
        /// Forwarded without recording (the proxy's `--on-miss passthrough`).
        case passthrough
        case miss
    }

    public struct Exchange: Sendable {
        public var response: TransportResponse
        public var outcome: Outcome
        public var key: RequestKey
        /// The stored interaction that answered, or was recorded.
        public var interaction: Interaction?
    }

    public struct Counters: Sendable, Equatable {
        public var replayed = 0
        public var recorded = 0
        public var passthrough = 0
        public var missed = 0

        public init(replayed: Int = 0, recorded: Int = 0, passthrough: Int = 0, missed: Int = 0) {
            self.replayed = replayed
            self.recorded = recorded
            self.passthrough = passthrough
            self.missed = missed
        }
    }

    public let store: CassetteStore
    public let options: Options
    public let matchingRules: MatchingRules
    public let index: ReplayIndex
    /// The upstream the cassette was recorded from, as saved with it.
    public let recordedUpstream: URL?
    private let upstream: (any HTTPTransport)?
    /// Rows that existed when the session began; `all` mode replaces only those.
    private let rowsBeforeSession: Int64
    private let overwritten = Mutex<Set<String>>([])
    // Atomics rather than a lock: every replayed request counts, from several event loops at once.
    private let replayedCount = Atomic(0)
    private let recordedCount = Atomic(0)
    private let passthroughCount = Atomic(0)
    private let missedCount = Atomic(0)
    private let parsedKeys = Mutex<[RequestKey]?>(nil)

    private init(store: CassetteStore, options: Options, matchingRules: MatchingRules, index: ReplayIndex, recordedUpstream: URL?, upstream: (any HTTPTransport)?, rowsBeforeSession: Int64) {
        self.store = store
        self.recordedUpstream = recordedUpstream
        self.options = options
        self.matchingRules = matchingRules
        self.index = index
        self.upstream = upstream
        self.rowsBeforeSession = rowsBeforeSession
    }

    /// Loads the cassette into memory (the only time replay reads SQLite) and, when recording,
    /// remembers its upstream and matching rules.
    public static func open(store: CassetteStore, options: Options, upstream: (any HTTPTransport)? = nil) async throws -> CassetteSession {
        if options.mode != .none && store.access != .readWrite {
            throw CassetteStoreError(.readOnly, path: store.path, message: "\(store.path) was opened read-only, so mode \(options.mode.rawValue) cannot record; open it for writing")
        }
        let saved = try await store.cassette(named: options.cassette)
        let rules = options.matchingRules ?? saved?.matchingRules ?? .default
        // Keys computed with other rules, or by another key format, are recomputed from what was
        // stored: in the file when recording (its new recordings get keys of the new kind), in
        // memory only when replaying.
        var rekeying = saved?.needsRekeying(for: rules) == true ? rules : nil
        if options.mode != .none {
            if let rekeying {
                try await store.rekey(cassette: options.cassette, rules: rekeying)
            }
            rekeying = nil
            var info = saved ?? CassetteInfo(name: options.cassette)
            info.matchingRules = rules
            info.keyFormat = RequestKey.formatVersion
            if let upstream = options.upstream { info.upstream = upstream.absoluteString }
            try await store.saveCassette(info)
        }
        let index = try await store.replayIndex(cassette: options.cassette, sequencePolicy: options.sequencePolicy, rekeyingWith: rekeying)
        let rowsBeforeSession = try await store.maxRowID()
        let recordedUpstream = options.upstream ?? saved?.upstream.flatMap { URL(string: $0) }
        return CassetteSession(store: store, options: options, matchingRules: rules, index: index, recordedUpstream: recordedUpstream, upstream: upstream, rowsBeforeSession: rowsBeforeSession)
    }

    public var statistics: Counters {
        Counters(
            replayed: replayedCount.load(ordering: .relaxed),
            recorded: recordedCount.load(ordering: .relaxed),
            passthrough: passthroughCount.load(ordering: .relaxed),
            missed: missedCount.load(ordering: .relaxed)
        )
    }

    // MARK: Answering

    /// Answers one request according to the record mode. The caller gets the live response when it
    /// was forwarded, the stored (redacted) one when it was replayed.
    public func respond(to request: TransportRequest) async throws -> Exchange {
        let redacted = redact(request)
        let key = RequestKey(method: request.method, url: redacted.url, headerFields: redacted.headerFields, body: redacted.body, rules: matchingRules)
        switch options.mode {
        case .none:
            return try replay(key: key)
        case .once:
            if index.contains(key.rawValue) { return try replay(key: key) }
            return try await record(request, redacted: redacted, key: key)
        case .missing:
            if index.hasUnservedRecording(for: key.rawValue) { return try replay(key: key) }
            return try await record(request, redacted: redacted, key: key)
        case .all:
            return try await record(request, redacted: redacted, key: key)
        }
    }

    /// Answers from the cassette only, whatever the mode.
    public func replay(_ request: TransportRequest) throws -> Exchange {
        let redacted = redact(request)
        return try replay(key: RequestKey(method: request.method, url: redacted.url, headerFields: redacted.headerFields, body: redacted.body, rules: matchingRules))
    }

    /// Forwards without recording (a replay miss the user chose to let through).
    public func passthrough(_ request: TransportRequest) async throws -> Exchange {
        let upstream = try requireUpstream()
        let response = try await upstream.send(request)
        passthroughCount.add(1, ordering: .relaxed)
        let redacted = redact(request)
        let key = RequestKey(method: request.method, url: redacted.url, headerFields: redacted.headerFields, body: redacted.body, rules: matchingRules)
        return Exchange(response: response, outcome: .passthrough, key: key, interaction: nil)
    }

    /// The key a request gets in this session (after redaction), for logs and explanations.
    public func key(for request: TransportRequest) -> RequestKey {
        let redacted = redact(request)
        return RequestKey(method: request.method, url: redacted.url, headerFields: redacted.headerFields, body: redacted.body, rules: matchingRules)
    }

    /// The replay hot path for a server that holds the request target (`/path?query`) rather
    /// than a URL: redaction and key computation work on the target text, nothing is parsed twice
    /// and no response copy is made. Throws `CassetteMiss` like `replay(_:)`.
    /// `secretHeaders`: the request's secret headers (credentials, cookies), whose values are
    /// scrubbed from the target and body as when the request was recorded.
    public func replayInteraction(method: HTTPMethod, target: String, contentType: String?, body: Data?, secretHeaders: HTTPFields = [:]) throws -> Interaction {
        var fields = secretHeaders
        if let contentType, body != nil, method.carriesBody { fields[.contentType] = contentType }
        let redacted = options.redactor.redact(requestURL: target, headerFields: fields, body: method.carriesBody ? body : nil)
        var keyFields = HTTPFields()
        if let contentType, body != nil, method.carriesBody { keyFields[.contentType] = contentType }
        let key = RequestKey(method: method, target: redacted.url, headerFields: keyFields, body: method.carriesBody ? redacted.body : body, rules: matchingRules)
        return try lookup(key: key)
    }

    /// The key `replayInteraction(method:target:contentType:body:)` would look up, for callers
    /// that cache it per target (and request it only for requests without secret headers).
    public func keyText(method: HTTPMethod, target: String, secretHeaders: HTTPFields = [:]) -> String {
        RequestKey(method: method, target: redactedTarget(target, secretHeaders: secretHeaders), rules: matchingRules).rawValue
    }

    /// The target as keyed, logged and stored: secret query values replaced, and the values of
    /// the secret headers and query parameters scrubbed from the path and query.
    public func redactedTarget(_ target: String, secretHeaders: HTTPFields = [:]) -> String {
        options.redactor.redact(requestURL: target, headerFields: secretHeaders, body: nil).url
    }

    /// Replays by a key from `keyText(method:target:)`; a miss is explained like any other.
    public func replayInteraction(keyText: String) throws -> Interaction {
        try replay(keyText: keyText) { $0 }
    }

    /// The row id of the recording `replayInteraction(keyText:)` would return, without copying
    /// the recording: for the replay proxy's hot path, which holds its prepared answers by row id.
    public func replayRecordingID(keyText: String) throws -> Int64? {
        try replay(keyText: keyText) { $0.id }
    }

    /// `replayRecordingID(keyText:)` by the key's slot in the index (`index.slot(for:)`), which a
    /// caller keeps to skip hashing the key; `keyText` only explains an exhausted sequence.
    public func replayRecordingID(slot: ReplayIndex.Slot, keyText: String) throws -> Int64? {
        try resolve(index.next(at: slot) { $0.id }) { Self.parsedKey(keyText) }
    }

    private func replay<Value: Sendable>(keyText: String, read: (Interaction) -> Value) throws -> Value {
        try resolve(index.next(for: keyText, read: read)) { Self.parsedKey(keyText) }
    }

    private static func parsedKey(_ keyText: String) -> RequestKey {
        // Key text this session produced always parses back.
        RequestKey(rawValue: keyText) ?? RequestKey(method: .get, target: "/")
    }

    private func replay(key: RequestKey) throws -> Exchange {
        let interaction = try lookup(key: key)
        return Exchange(response: interaction.response, outcome: .replayed, key: key, interaction: interaction)
    }

    private func lookup(key: RequestKey) throws -> Interaction {
        try resolve(index.next(for: key.rawValue)) { key }
    }

    private func resolve<Value>(_ lookup: ReplayIndex.Selection<Value>, key: () -> RequestKey) throws -> Value {
        switch lookup {
        case .hit(let value, _):
            replayedCount.add(1, ordering: .relaxed)
            return value
        case .exhausted(let count):
            missedCount.add(1, ordering: .relaxed)
            throw miss(for: key(), exhaustedAfter: count)
        case .miss:
            missedCount.add(1, ordering: .relaxed)
            throw miss(for: key(), exhaustedAfter: nil)
        }
    }

    private func record(_ request: TransportRequest, redacted: TransportRequest, key: RequestKey) async throws -> Exchange {
        let upstream = try requireUpstream()
        let recordedAt = Date()
        let response = try await upstream.send(request)
        // A server may repeat a credential it was sent (an echo, an error quoting the request).
        let secrets = options.redactor.secretValues(url: request.url, headerFields: request.headerFields, body: request.body)
        let redactedResponse = options.redactor.redact(responseHeaders: response.headerFields, body: response.body, requestSecrets: secrets)
        // Redaction can change the body's length; Content-Length must describe the stored body.
        let storedBody = redactedResponse.body
        let storedHeaders = Interaction.storedResponseHeaders(redactedResponse.headerFields, bodyCount: storedBody.count, statusCode: response.statusCode, method: request.method)
        let interaction = Interaction(
            cassette: options.cassette,
            method: request.method,
            url: redacted.url.absoluteString,
            key: key.rawValue,
            requestHeaders: redacted.headerFields,
            requestBody: redacted.body,
            statusCode: response.statusCode,
            responseHeaders: storedHeaders,
            responseBody: storedBody,
            contentEncoding: response.decodedContentEncoding,
            recordedAt: recordedAt,
            duration: response.duration
        )
        let replacing = options.mode == .all && overwritten.withLock { $0.insert(key.rawValue).inserted }
        let stored: Interaction
        do {
            stored = try await store.record(interaction, replacingRowsUpTo: options.mode == .all ? rowsBeforeSession : nil)
        } catch {
            throw RecordingFailure(response: response, key: key.rawValue, underlying: error)
        }
        if replacing {
            index.replaceServed(stored)
        } else {
            index.appendServed(stored)
        }
        parsedKeys.withLock { $0 = nil }
        recordedCount.add(1, ordering: .relaxed)
        return Exchange(response: response, outcome: .recorded, key: key, interaction: stored)
    }

    private func requireUpstream() throws -> any HTTPTransport {
        guard let upstream else {
            throw TransportError(.invalidRequest, "cassette \"\(options.cassette)\" was opened without an upstream, so it cannot forward requests")
        }
        return upstream
    }

    // MARK: Redaction and keys

    private func redact(_ request: TransportRequest) -> TransportRequest {
        let result = options.redactor.redact(requestURL: request.url.absoluteString, headerFields: request.headerFields, body: request.body)
        var redacted = request
        redacted.url = URL(string: result.url) ?? options.redactor.redactedURL(request.url)
        redacted.headerFields = result.headerFields
        redacted.body = result.body
        return redacted
    }

    static func key(for interaction: Interaction, rules: MatchingRules) -> RequestKey {
        RequestKey(method: interaction.method, target: interaction.url, headerFields: interaction.requestHeaders, body: interaction.requestBody, rules: rules)
    }

    /// Builds the miss error with the nearest recordings; recomputes their keys from the stored
    /// requests so body differences can be named, not only noticed.
    private func miss(for key: RequestKey, exhaustedAfter: Int?) -> CassetteMiss {
        let candidates = parsedKeys.withLock { cached -> [RequestKey] in
            if let cached { return cached }
            let parsed = index.keys.compactMap { RequestKey(rawValue: $0) }
            cached = parsed
            return parsed
        }
        let nearest = exhaustedAfter != nil ? [] : RequestKey.nearest(to: key, among: candidates).map { difference -> KeyDifference in
            guard difference.recorded.bodyFingerprint != nil, let stored = index.peek(difference.recorded.rawValue) else { return difference }
            return KeyDifference(request: key, recorded: Self.key(for: stored, rules: matchingRules))
        }
        return CassetteMiss(method: key.method, key: key.rawValue, cassette: options.cassette, storePath: store.path, nearest: nearest, exhaustedAfter: exhaustedAfter)
    }
}
