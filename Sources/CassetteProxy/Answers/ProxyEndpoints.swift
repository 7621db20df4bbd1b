import CassetteTools
import Foundation
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// The proxy's own endpoints under `/__cassette/`, for scripts: health and statistics.
struct ProxyEndpoints: Sendable {
    static let prefix = "/__cassette/"

    let session: CassetteSession
    let modeName: String
    let started: ContinuousClock.Instant
    /// Forwarded requests skip certificate checks (`--insecure`): health says so.
    var insecure = false

    func answer(for head: HTTPRequestHead) -> ProxyAnswer {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        if path == SessionEndpoints.root || path.hasPrefix(SessionEndpoints.root + "/") {
            // Only the proxy's main port has sessions; this is a session's own port.
            // An endpoint's answer: it stays out of a session's journal, as the others do.
            return .json(
                404,
                [
                    "error": "no_sessions_here",
                    "message": "this port is a session's own; sessions are opened and managed on the main port of `cassette record`, `replay` or `run`",
                ], source: .endpoint)
        }
        guard head.method == .GET || head.method == .HEAD else {
            return .json(405, ["error": "method_not_allowed", "message": "use GET"], source: .endpoint)
        }
        switch path {
        case "/__cassette/health":
            var health: JSONObject = [
                "status": "ok",
                "mode": .string(modeName),
                "cassette": .string(session.options.cassette),
                "interactions": .integer(Int64(session.index.interactionCount)),
            ]
            if insecure { health["warning"] = .string(TLSHint.insecureWarning) }
            return .json(200, .object(health), source: .endpoint)
        case "/__cassette/stats":
            return .json(200, statistics(), source: .endpoint)
        default:
            return .json(404, ["error": "not_found", "message": "the proxy has /__cassette/health and /__cassette/stats"], source: .endpoint)
        }
    }

    func statistics() -> JSONValue {
        let counters = session.statistics
        let index = session.index.statistics
        var perKey = JSONObject()
        for key in index.hits.keys.sorted() {
            perKey[key] = .integer(Int64(index.hits[key]!))
        }
        let uptime = ContinuousClock.now - started
        return [
            "cassette": .string(session.options.cassette),
            "mode": .string(modeName),
            "hits": .integer(Int64(counters.replayed)),
            "misses": .integer(Int64(counters.missed)),
            "recorded": .integer(Int64(counters.recorded)),
            "passthrough": .integer(Int64(counters.passthrough)),
            "interactions": .integer(Int64(index.interactionCount)),
            "keys": .integer(Int64(index.keyCount)),
            "perKeyHits": .object(perKey),
            "unused": .array(index.unusedKeys.map { .string($0) }),
            "uptimeSeconds": .number(Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18),
        ]
    }
}
