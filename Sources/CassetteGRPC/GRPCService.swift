import CassetteKernel
import CassetteServing
import Foundation
import HTTPTypes
import NIOHPACK
import Synchronization
import WellPlateCore

/// gRPC on one listener: whether a call is replayed from the cassette, relayed to the upstream
/// and recorded, or answered with a gRPC error, decided by the serving policy as for any request.
/// Its calls are keyed `POST /package.Service/Method` (the method's path), so listings, usage and
/// `delete` name them as they name requests; the request message picks among a key's recordings.
final class GRPCService: Sendable {
    let served: ServingListener
    let schema: ProtoSchema
    /// `--grpc-max-message`: the largest message either side may send, inflated or not.
    let maxMessage: Int
    /// `--grpc-timing`: the factor on the recorded delays a replay waits.
    let timingScale: Double
    let reflection: ReflectionFetch
    /// How calls reach the listener's upstream (h2c or h2 over TLS); `nil` without one.
    var upstream: GRPCUpstreamConnection? { upstreamPool?.upstream }
    /// The connections calls to the listener's upstream share; `nil` without one.
    let upstreamPool: GRPCUpstreamPool?

    private let upstreams: GRPCUpstreamPools

    /// The pool of the listener's upstream; another's (never so today: plans name the listener's).
    func upstreamPool(for url: URL) -> GRPCUpstreamPool {
        if let upstreamPool, upstreamPool.upstream.upstream == url { return upstreamPool }
        return upstreams.pool(for: url, tls: served.settings.tls)
    }

    init(
        served: ServingListener, schema: ProtoSchema, maxMessage: Int, timingScale: Double = 1, reflection: ReflectionFetch,
        upstreams: GRPCUpstreamPools
    ) {
        self.served = served
        self.schema = schema
        self.maxMessage = maxMessage
        self.timingScale = timingScale
        self.reflection = reflection
        self.upstreams = upstreams
        upstreamPool = served.settings.upstream.map { upstreams.pool(for: $0, tls: served.settings.tls) }
    }

    /// Each method's key by its path: it depends on nothing else, and keying (normalising and
    /// redacting the target) cost a replayed unary call more than matching it (`perf`,
    /// Benchmarks/grpc.sh). Bounded, so a client inventing paths cannot grow it without end.
    private let keys = Mutex<[String: String]>([:])
    private let unaryAnswersByPath = Mutex<[String: GRPCUnaryAnswers?]>([:])

    func key(path: String) -> String {
        if let key = keys.withLock({ $0[path] }) { return key }
        let key = served.session.keyer.key(method: .post, target: path, contentType: nil, body: nil).rawValue
        keys.withLock { keys in
            if keys.count < 4096 { keys[path] = key }
        }
        return key
    }

    /// What a call gets.
    enum Plan {
        /// Replay; `fallback`: where a request no recording matches goes instead (recording, or
        /// passing through with `--on-miss passthrough`).
        case replay(GRPCReplay, fallback: (URL, records: Bool)?)
        case relay(URL, records: Bool)
        case refuse(GRPCStatusCode, String)
    }

    func plan(path: String) -> Plan {
        let key = key(path: path)
        let recordings = served.conversations.all(key)
        let step = served.session.options.policy.step(for: key, in: served.conversations)
        if !recordings.isEmpty, replaysRecordings(step) {
            return .replay(GRPCReplay(path: path, recordings: recordings, schema: schema, redactLive: redactLive(path)), fallback: fallback(step))
        }
        switch step {
        case .replay(let orPassthrough):
            if orPassthrough, let upstream = served.settings.upstream { return .relay(upstream, records: false) }
            return .refuse(
                .unimplemented,
                "cassette: nothing is recorded for \(path) in cassette \"\(served.session.options.cassette)\"\(nearest(path)); record it with `cassette record --upstream URL`"
            )
        case .record:
            guard let upstream = served.settings.upstream else {
                return .refuse(.unavailable, "cassette: \(path) is not recorded and this proxy has no upstream to record it from")
            }
            return .relay(upstream, records: true)
        }
    }

    /// Whether a method with recordings replays them at this `step` of the serving policy. A key
    /// is a method here and its request picks the recording, so a request none matches is
    /// recorded when the mode records: `missing` and `once` replay a method with recordings
    /// (when there is an upstream to record the others from), `all` records everything.
    private func replaysRecordings(_ step: ServingPolicy.Step) -> Bool {
        switch step {
        case .replay: true
        case .record: served.session.options.policy.mode != .all && served.settings.upstream != nil
        }
    }

    /// Whether a call of the method `key` (which has recordings) replays them now.
    func replaysRecordings(of key: String) -> Bool {
        replaysRecordings(served.session.options.policy.step(for: key, in: served.conversations))
    }

    /// Where a replayed call no recording matches goes instead: recorded when the mode records,
    /// passed through with `--on-miss passthrough`.
    private func fallback(_ step: ServingPolicy.Step) -> (URL, records: Bool)? {
        guard let upstream = served.settings.upstream else { return nil }
        switch step {
        case .replay(let orPassthrough):
            return served.session.options.policy.records ? (upstream, records: true) : orPassthrough ? (upstream, records: false) : nil
        case .record:
            return (upstream, records: true)
        }
    }

    /// Each unary-shaped method's answers (`GRPCUnaryAnswers`) by its path, worked out at its
    /// first call; `nil` for a method that has no recordings or one that is not unary-shaped.
    /// Bounded as `keys` is.
    private static let unaryAnswerLimit = 4096

    func unaryAnswers(path: String) -> GRPCUnaryAnswers? {
        if let known = unaryAnswersByPath.withLock({ $0[path] }) { return known }
        let key = key(path: path)
        let answers = GRPCUnaryAnswers(
            path: path, key: key, recordings: served.conversations.all(key), schema: schema, waits: timingScale != 0, redactLive: redactLive(path))
        unaryAnswersByPath.withLock { byPath in
            if byPath.count < Self.unaryAnswerLimit { byPath[path] = .some(answers) }
        }
        return answers
    }

    /// A live client message as it would have been stored, for matching it against the recordings.
    private func redactLive(_ path: String) -> @Sendable (Data) -> Data {
        let (keyer, schema) = (served.session.keyer, schema)
        return { message in
            var secrets = SecretValues()
            return keyer.redactedGRPCMessage(message, schema: schema, path: path, direction: .request, secrets: &secrets)
        }
    }

    /// `; recorded methods: ...` naming what the cassette has, for a miss.
    private func nearest(_ path: String) -> String {
        let service = path.split(separator: "/").first.map(String.init) ?? ""
        let recorded = served.conversations.keys.filter { $0.hasPrefix("POST /") }.map { String($0.dropFirst(5)) }
        let sameService = recorded.filter { $0.hasPrefix("/" + service + "/") }
        let shown = (sameService.isEmpty ? recorded : sameService).sorted().prefix(5)
        return shown.isEmpty ? "" : "; recorded: " + shown.joined(separator: ", ")
    }

    func recorder(path: String, headers: HPACKHeaders) -> GRPCCallRecorder {
        if schema.methods[path] == nil, let upstream {
            reflection.fetchOnce(from: upstream, into: served.session.store, log: served.log, writers: served.writers)
        }
        let call = Conversation(
            cassette: served.session.options.cassette, url: path, key: key(path: path), requestHeaders: GRPCHeaders.storedRequestMetadata(headers),
            subprotocol: nil,
            extensions: nil, grpc: GRPCCallHeads(responseHeaders: nil, trailers: [:]))
        return GRPCCallRecorder(
            store: served.session.store, call: call, keyer: served.session.keyer, schema: schema, log: served.log, writers: served.writers)
    }
}
