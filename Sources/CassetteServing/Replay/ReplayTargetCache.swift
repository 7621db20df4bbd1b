import NIOCore
import WellPlateCore
import WellPlateNetworking

/// A replay request's key, slot and log target, worked out once and kept per event loop.
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

extension CachedTarget {
    /// A request with a body, by everything its key is made of when it has no keyed or secret
    /// headers (`ProxyReplayer.cachedTarget(method:uri:operationName:body:head:cache:)`).
    struct BodyKey: Hashable, Sendable {
        let method: WellPlateCore.HTTPMethod
        let uri: String
        let contentType: String?
        let operationName: String?
        /// Compared and hashed by its readable bytes (`ByteBuffer`'s `Hashable`).
        let body: ByteBuffer

        /// The same key holding a copy of the body the size of the body: the request's buffer
        /// can be a view of a larger one, which a cached key must not keep alive.
        var compacted: BodyKey {
            BodyKey(method: method, uri: uri, contentType: contentType, operationName: operationName, body: ByteBuffer(bytes: body.readableBytesView))
        }
    }
}

/// The targets one event loop's connections asked for (`ProxyHandler.cachedTarget`). Every
/// connection on the loop shares it through a `NIOLoopBoundBox`, so a new connection starts warm
/// and no lock is taken: only the loop's own thread reads or writes it.
struct ReplayTargetCache: Sendable {
    private var entries: [CachedTarget.Key: CachedTarget] = [:]
    private var bodies: [CachedTarget.BodyKey: CachedTarget] = [:]
    /// The body bytes `bodies` holds.
    private var bodyBytes = 0

    /// Bounds the memory a client sending ever new targets can take; emptied when full.
    static let limit = 4096
    /// Requests with larger bodies are keyed each time: uploads are rarely repeated, and a
    /// cached key holds its body.
    static let bodyLimit = 16 * 1024
    /// Bounds the body bytes cached per event loop (the entries, `limit`, bound them too).
    static let bodyBytesLimit = 4 * 1024 * 1024

    subscript(key: CachedTarget.Key) -> CachedTarget? {
        entries[key]
    }

    subscript(key: CachedTarget.BodyKey) -> CachedTarget? {
        bodies[key]
    }

    mutating func insert(_ target: CachedTarget, for key: CachedTarget.Key) {
        if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
        entries[key] = target
    }

    mutating func insert(_ target: CachedTarget, for key: CachedTarget.BodyKey) {
        let size = key.body.readableBytes
        guard size <= Self.bodyLimit else { return }
        if bodies.count >= Self.limit || bodyBytes + size > Self.bodyBytesLimit {
            bodies.removeAll(keepingCapacity: true)
            bodyBytes = 0
        }
        if bodies.updateValue(target, forKey: key.compacted) == nil { bodyBytes += size }
    }

    /// How many requests with bodies are cached, and their body bytes (for tests of the bounds).
    var bodyCount: (entries: Int, bytes: Int) { (bodies.count, bodyBytes) }
}
