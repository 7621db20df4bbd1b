import CassetteKernel
import CassetteServing
import Foundation
import HTTPTypes
import NIOHPACK
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
    let reflection: ReflectionFetch
    /// How calls reach the listener's upstream (h2c or h2 over TLS); `nil` without one.
    let upstream: GRPCUpstreamConnection?

    init(served: ServingListener, schema: ProtoSchema, maxMessage: Int, reflection: ReflectionFetch) {
        self.served = served
        self.schema = schema
        self.maxMessage = maxMessage
        self.reflection = reflection
        upstream = served.settings.upstream.map { GRPCUpstreamConnection(upstream: $0, tls: served.settings.tls) }
    }

    func key(path: String) -> String {
        served.session.keyer.key(method: .post, target: path, contentType: nil, body: nil).rawValue
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
        switch served.session.options.policy.step(for: key, in: served.conversations) {
        case .replay(let orPassthrough):
            // A key is a method here; its request picks the recording, so a request none matches
            // is recorded when the mode records (`once` and `missing` decide per request).
            let fallback = served.settings.upstream.flatMap { upstream in
                served.session.options.policy.records ? (upstream, records: true) : orPassthrough ? (upstream, records: false) : nil
            }
            if !recordings.isEmpty {
                return .replay(GRPCReplay(path: path, recordings: recordings, schema: schema, redactLive: redactLive(path)), fallback: fallback)
            }
            if orPassthrough, let upstream = served.settings.upstream { return .relay(upstream, records: false) }
            return .refuse(
                .unimplemented,
                "cassette: nothing is recorded for \(path) in cassette \"\(served.session.options.cassette)\"\(nearest(path)); record it with `cassette record --upstream URL`"
            )
        case .record:
            // A method with recordings: a request that matches one replays (`missing`, `once`).
            if !recordings.isEmpty, served.session.options.policy.mode != .all, let upstream = served.settings.upstream {
                return .replay(
                    GRPCReplay(path: path, recordings: recordings, schema: schema, redactLive: redactLive(path)), fallback: (upstream, records: true))
            }
            guard let upstream = served.settings.upstream else {
                return .refuse(.unavailable, "cassette: \(path) is not recorded and this proxy has no upstream to record it from")
            }
            return .relay(upstream, records: true)
        }
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
