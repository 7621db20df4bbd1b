import CassetteKernel
import Foundation
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// The proxy's own endpoints under `/__cassette/`, for scripts: health and statistics.
package struct ProxyEndpoints: Sendable {
    package let session: CassetteSession
    /// What the proxy does: `record` or `replay`.
    package let policy: ServingPolicy
    package let started: ContinuousClock.Instant
    /// Forwarded requests skip certificate checks (`--insecure`): health says so.
    package var insecure = false

    package init(session: CassetteSession, policy: ServingPolicy, started: ContinuousClock.Instant, insecure: Bool = false) {
        self.session = session
        self.policy = policy
        self.started = started
        self.insecure = insecure
    }

    /// `GET /__cassette/health`: whether it runs, what it serves.
    package func health() -> ProxyAnswer {
        var health: JSONObject = [
            "status": "ok",
            "mode": .string(policy.name),
            "cassette": .string(session.options.cassette),
            "interactions": .integer(Int64(session.index.interactionCount)),
        ]
        if insecure { health["warning"] = .string(TLSHint.insecureWarning) }
        return .json(200, .object(health), source: .endpoint)
    }

    package func statistics() -> JSONValue {
        let counters = session.statistics
        let index = session.index.statistics
        var perKey = JSONObject()
        for key in index.hits.keys.sorted() {
            perKey[key] = .integer(Int64(index.hits[key]!))
        }
        let uptime = ContinuousClock.now - started
        return [
            "cassette": .string(session.options.cassette),
            "mode": .string(policy.name),
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
