import WellPlateCore
import WellPlateNetworking

/// A replay request's key, slot and log target, worked out from its method and target alone.
///
/// A class: the hot path takes one from the cache for every request, and a reference is one
/// retain where this struct's strings and key were a copy each (`perf`).
final class CachedTarget: Sendable {
    struct Key: Hashable, Sendable {
        let method: WellPlateCore.HTTPMethod
        let uri: String
        /// `X-APOLLO-OPERATION-NAME`, which names a GraphQL GET that carries only a hash.
        let operationName: String?
    }

    let keyText: String
    /// `nil` for a key without recordings (a replay-only index never gains any).
    let slot: ReplayIndex.Slot?
    let logTarget: String
    /// The target as the request log line shows it: `logTarget`, or for a GraphQL request its
    /// path and operation (`GraphQLKeyPart.loggedTarget`), worked out once here.
    let lineTarget: String
    /// The whole key of a request keyed each time, whose body explains a miss better than the
    /// key text; `nil` for cached targets but a GraphQL GET.
    let key: RequestKey?

    init(key: RequestKey, slot: ReplayIndex.Slot?, logTarget: String, keepsKey: Bool) {
        keyText = key.rawValue
        self.slot = slot
        self.logTarget = logTarget
        lineTarget = key.graphQL.map { "\(logTarget.prefix { $0 != "?" }) \($0.label)" } ?? logTarget
        self.key = keepsKey ? key : nil
    }
}

/// The targets one event loop's connections asked for (`ProxyHandler.cachedTarget`). Every
/// connection on the loop shares it through a `NIOLoopBoundBox`, so a new connection starts warm
/// and no lock is taken: only the loop's own thread reads or writes it.
struct ReplayTargetCache: Sendable {
    private var entries: [CachedTarget.Key: CachedTarget] = [:]

    /// Bounds the memory a client sending ever new targets can take; emptied when full.
    static let limit = 4096

    subscript(key: CachedTarget.Key) -> CachedTarget? {
        entries[key]
    }

    mutating func insert(_ target: CachedTarget, for key: CachedTarget.Key) {
        if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
        entries[key] = target
    }
}
