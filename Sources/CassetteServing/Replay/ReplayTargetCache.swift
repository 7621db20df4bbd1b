import CassetteKernel
import NIOCore
import WellPlateCore
import WellPlateNetworking

/// A replay request's key, slot and log target, worked out once and kept per event loop.
///
/// A class: the hot path takes one from the cache for every request, and a reference is one
/// retain where this struct's strings and key were a copy each (`perf`).
package final class CachedTarget: Sendable {
    package struct Key: Hashable, Sendable {
        package let method: WellPlateCore.HTTPMethod
        package let uri: String
        /// `X-APOLLO-OPERATION-NAME`, which names a GraphQL GET that carries only a hash.
        package let operationName: String?
    }

    package let keyText: String
    /// `nil` for a key without recordings (a replay-only index never gains any).
    package let slot: ReplayIndex.Slot?
    package let logTarget: String
    /// The target as the request log line shows it: `logTarget`, or for a GraphQL request its
    /// path and operation (`GraphQLKeyPart.loggedTarget`), worked out once here.
    package let lineTarget: String
    /// The whole key of a request keyed each time, whose body explains a miss better than the
    /// key text; `nil` for cached targets but a GraphQL GET.
    package let key: RequestKey?

    package init(key: RequestKey, slot: ReplayIndex.Slot?, logTarget: String, keepsKey: Bool) {
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
    package struct BodyKey: Hashable, Sendable {
        package let method: WellPlateCore.HTTPMethod
        package let uri: String
        package let contentType: String?
        package let operationName: String?
        /// Compared and hashed by its readable bytes (`ByteBuffer`'s `Hashable`).
        package let body: ByteBuffer

        /// The same key holding a copy of the body the size of the body: the request's buffer
        /// can be a view of a larger one, which a cached key must not keep alive.
        package var compacted: BodyKey {
            BodyKey(method: method, uri: uri, contentType: contentType, operationName: operationName, body: ByteBuffer(bytes: body.readableBytesView))
        }
    }
}

/// The targets one event loop's connections asked for (`ProxyReplayer.pick`). Every
/// connection on the loop shares it through a `NIOLoopBoundBox`, so a new connection starts warm
/// and no lock is taken: only the loop's own thread reads or writes it.
package struct ReplayTargetCache: Sendable {
    private var entries: [CachedTarget.Key: CachedTarget] = [:]
    private var bodies: [CachedTarget.BodyKey: CachedTarget] = [:]
    /// The body bytes `bodies` holds.
    private var bodyBytes = 0

    /// Bounds the memory a client sending ever new targets can take; emptied when full.
    package static let limit = 4096
    /// Requests with larger bodies are keyed each time: uploads are rarely repeated, and a
    /// cached key holds its body.
    package static let bodyLimit = 16 * 1024
    /// Bounds the body bytes cached per event loop (the entries, `limit`, bound them too).
    package static let bodyBytesLimit = 4 * 1024 * 1024

    package init() {}

    package subscript(key: CachedTarget.Key) -> CachedTarget? {
        entries[key]
    }

    package subscript(key: CachedTarget.BodyKey) -> CachedTarget? {
        bodies[key]
    }

    package mutating func insert(_ target: CachedTarget, for key: CachedTarget.Key) {
        if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
        entries[key] = target
    }

    package mutating func insert(_ target: CachedTarget, for key: CachedTarget.BodyKey) {
        let size = key.body.readableBytes
        guard size <= Self.bodyLimit else { return }
        if bodies.count >= Self.limit || bodyBytes + size > Self.bodyBytesLimit {
            bodies.removeAll(keepingCapacity: true)
            bodyBytes = 0
        }
        if bodies.updateValue(target, forKey: key.compacted) == nil { bodyBytes += size }
    }

    /// How many requests with bodies are cached, and their body bytes (for tests of the bounds).
    package var bodyCount: (entries: Int, bytes: Int) { (bodies.count, bodyBytes) }
}
