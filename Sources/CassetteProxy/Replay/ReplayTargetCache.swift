import WellPlateCore
import WellPlateNetworking

/// A replay request's key, slot and log target, worked out from its method and target alone.
struct CachedTarget: Sendable {
    struct Key: Hashable, Sendable {
        let method: WellPlateCore.HTTPMethod
        let uri: String
    }

    let keyText: String
    /// `nil` for a key without recordings (a replay-only index never gains any).
    let slot: ReplayIndex.Slot?
    let logTarget: String
    /// The whole key of a request keyed each time, whose body explains a miss better than the
    /// key text; `nil` for cached targets but a GraphQL GET.
    var key: RequestKey? = nil
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
