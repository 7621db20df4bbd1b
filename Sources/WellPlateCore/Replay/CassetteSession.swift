import Foundation
import HTTPTypes
import Synchronization

/// One cassette opened for record or replay: the single policy that decides, for every request,
/// whether to answer from the recording or forward it upstream and record the answer. Used by
/// `RecordingTransport`, `ReplayTransport`, `ReplayAPIClient` and the `cassette` proxy alike.
public final class CassetteSession: Sendable {
    /// What to open: which cassette, in which mode, with which matching rules and redaction.
    public struct Options: Sendable {
        /// The cassette's name within the store (usually an environment name such as `dev`).
        public var cassette: String
        /// When requests are recorded and when they are replayed; the default, `.replayOnly`, only replays.
        public var mode: RecordMode {
            get { policy.requestedMode }
            set { policy = ServingPolicy(mode: newValue, onMiss: policy.onMiss) }
        }
        /// The mode with what a request without a recording gets (the proxy's `--on-miss`): the
        /// one value every serving decision of the session asks.
        package var policy: ServingPolicy
        /// `nil` uses the rules the cassette was recorded with (or the defaults for a new cassette).
        public var matchingRules: MatchingRules?
        /// Applied to every request before it is keyed, and to recorded responses before they are stored.
        public var redactor: Redactor
        /// What replay does once every recording of a key has been served.
        public var sequencePolicy: SequencePolicy
        /// Remembered with the cassette so replay knows what it stood in for.
        public var upstream: URL?
        /// Credential shapes replaced in WebSocket messages before they are stored (the proxy's:
        /// `cassette audit`'s scanner); none by default.
        package var messageSecretShapes = MessageSecretShapes.none

        /// Options that default to replaying cassette `dev` only (`mode: .replayOnly`), with default redaction and `SequencePolicy.repeatLast`.
        public init(
            cassette: String = "dev",
            mode: RecordMode = .replayOnly,
            matchingRules: MatchingRules? = nil,
            redactor: Redactor = .default,
            sequencePolicy: SequencePolicy = .repeatLast,
            upstream: URL? = nil
        ) {
            self.init(
                cassette: cassette, policy: ServingPolicy(mode: mode), matchingRules: matchingRules, redactor: redactor, sequencePolicy: sequencePolicy,
                upstream: upstream)
        }

        /// Options serving `policy` whole, as the proxy resolved it from its flags or a session's request.
        package init(
            cassette: String, policy: ServingPolicy, matchingRules: MatchingRules? = nil, redactor: Redactor = .default,
            sequencePolicy: SequencePolicy = .repeatLast, upstream: URL? = nil
        ) {
            self.cassette = cassette
            self.policy = policy
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

    /// One answered request: the response, how it was answered and under which key.
    public struct Exchange: Sendable {
        /// The response handed back to the caller.
        public var response: TransportResponse
        /// Whether the response was replayed, recorded or passed through.
        public var outcome: Outcome
        /// The request's key, computed from the redacted request.
        public var key: RequestKey
        /// The stored interaction that answered, or was recorded.
        public var interaction: Interaction?
    }

    /// How many requests the session answered in each way.
    public struct Counters: Sendable, Equatable {
        /// Requests answered from the cassette.
        public var replayed = 0
        /// Requests forwarded upstream and recorded.
        public var recorded = 0
        /// Requests forwarded upstream without recording.
        public var passthrough = 0
        /// Requests that found no recording to answer them.
        public var missed = 0

        /// Counters with the given values, all zero by default.
        public init(replayed: Int = 0, recorded: Int = 0, passthrough: Int = 0, missed: Int = 0) {
            self.replayed = replayed
            self.recorded = recorded
            self.passthrough = passthrough
            self.missed = missed
        }
    }

    /// The store the cassette lives in.
    public let store: CassetteStore
    /// The options the session was opened with.
    public let options: Options
    /// The rules in effect: `options.matchingRules`, else those the cassette was recorded with, else the defaults.
    public let matchingRules: MatchingRules
    /// How requests become keys in this session: its redactor and matching rules.
    package let keyer: ReplayKeyer
    package let index: ReplayIndex
    /// The upstream the cassette was recorded from, as saved with it.
    public let recordedUpstream: URL?
    // Internal rather than private: the extensions in CassetteSession+*.swift use them.
    package let upstream: (any HTTPTransport)?
    /// Rows that existed when the session began; `all` mode replaces only those.
    let rowsBeforeSession: Int64
    /// Keys `all` mode has replaced in this session: their earlier recordings are gone.
    let overwritten = Mutex<Set<String>>([])
    // Atomics rather than a lock: every replayed request counts, from several event loops at once.
    let replayedCount = Atomic(0)
    let recordedCount = Atomic(0)
    let passthroughCount = Atomic(0)
    let missedCount = Atomic(0)
    /// WebSocket conversations recorded and missed (`countConversationRecorded`, `countConversationMiss`).
    package let conversationTally = ConversationTally()
    /// The index's keys parsed for explaining misses; reset when a recording adds one.
    let parsedKeys = Mutex<[RequestKey]?>(nil)

    private init(
        store: CassetteStore, options: Options, matchingRules: MatchingRules, index: ReplayIndex, recordedUpstream: URL?, upstream: (any HTTPTransport)?,
        rowsBeforeSession: Int64, learned: LearnedSecrets
    ) {
        self.store = store
        self.recordedUpstream = recordedUpstream
        self.options = options
        self.matchingRules = matchingRules
        keyer = ReplayKeyer(redactor: options.redactor, rules: matchingRules, learned: learned, messageSecretShapes: options.messageSecretShapes)
        self.index = index
        self.upstream = upstream
        self.rowsBeforeSession = rowsBeforeSession
    }

    /// Loads the cassette into memory (the only time replay reads SQLite) and, when recording,
    /// remembers its upstream and matching rules.
    public static func open(store: CassetteStore, options: Options, upstream: (any HTTPTransport)? = nil) async throws -> CassetteSession {
        try await open(store: store, options: options, upstream: upstream) { rekeying, rules in
            try await store.replayIndex(
                cassette: options.cassette, sequencePolicy: options.sequencePolicy, rekeyingWith: rekeying, rules: rules)
        }
    }

    /// `open(store:options:upstream:)`, with every recording also turned into `preparer`'s answer
    /// as it loads (the replay proxy's prepared responses); the answers are at the positions
    /// `ReplayIndex.Pick.loaded` names.
    package static func open<Preparer: ReplayAnswerPreparer & Sendable>(
        store: CassetteStore, options: Options, upstream: (any HTTPTransport)? = nil, preparing preparer: Preparer
    ) async throws -> (session: CassetteSession, answers: [Preparer.Answer]) {
        var answers: [Preparer.Answer] = []
        let session = try await open(store: store, options: options, upstream: upstream) { rekeying, rules in
            let loaded = try await store.replayIndex(
                cassette: options.cassette, sequencePolicy: options.sequencePolicy, rekeyingWith: rekeying, rules: rules, preparing: preparer)
            answers = loaded.answers
            return loaded.index
        }
        return (session, answers)
    }

    private static func open(
        store: CassetteStore, options: Options, upstream: (any HTTPTransport)?, loadIndex: (MatchingRules?, MatchingRules) async throws -> ReplayIndex
    ) async throws -> CassetteSession {
        if options.policy.records && store.access != .readWrite {
            throw CassetteStoreError(
                .readOnly, path: store.path,
                message: "\(store.path) was opened read-only, so mode \(options.policy.mode.rawValue) cannot record; open it for writing")
        }
        let saved = try await store.cassette(named: options.cassette)
        let rules = options.matchingRules ?? saved?.matchingRules ?? .default
        // Keys computed with other rules, or by another key format, are recomputed from what was
        // stored: in the file when recording (its new recordings get keys of the new kind), in
        // memory only when replaying.
        var rekeying = saved?.needsRekeying(for: rules) == true ? rules : nil
        if options.policy.records {
            if let rekeying {
                try await store.rekey(cassette: options.cassette, rules: rekeying)
            }
            rekeying = nil
            var info = saved ?? CassetteInfo(name: options.cassette)
            info.matchingRules = rules
            info.keyFormat = RequestKey.formatVersion
            if let upstream = options.upstream { info.upstream = upstream.absoluteString }
            // Unchanged, it is not written: a test run that records nothing leaves the file alone.
            if info != saved { try await store.saveCassette(info) }
        }
        let index = try await loadIndex(rekeying, rules)
        let rowsBeforeSession = try await store.maxRowID()
        let recordedUpstream = options.upstream ?? saved?.upstream.flatMap { URL(string: $0) }
        // Learned from every cassette's responses: a session token is as secret in a cassette
        // recorded after the one whose login set it.
        let learned = try await store.learnedSecrets()
        return CassetteSession(
            store: store, options: options, matchingRules: rules, index: index, recordedUpstream: recordedUpstream, upstream: upstream,
            rowsBeforeSession: rowsBeforeSession, learned: learned)
    }

    /// How many requests were replayed, recorded, passed through and missed since the session opened.
    public var statistics: Counters {
        Counters(
            replayed: replayedCount.load(ordering: .relaxed),
            recorded: recordedCount.load(ordering: .relaxed),
            passthrough: passthroughCount.load(ordering: .relaxed),
            missed: missedCount.load(ordering: .relaxed)
        )
    }
}
