import Foundation
import NIOCore
import Testing
import WellPlateCore

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket

/// The bounds of the per-loop cache of keys of requests with bodies, and what tells its entries
/// apart (`ProxyBodyKeyCacheTests` replays through it).
@Suite("ReplayTargetCache")
struct ReplayTargetCacheTests {
    static func key(_ body: String, contentType: String? = "application/json", operationName: String? = nil) -> CachedTarget.BodyKey {
        CachedTarget.BodyKey(method: .post, uri: "/graphql", contentType: contentType, operationName: operationName, body: ByteBuffer(string: body))
    }

    static func target(_ text: String) -> CachedTarget {
        CachedTarget(key: RequestKey(method: .post, target: text), slot: nil, logTarget: text, keepsKey: true)
    }

    @Test func entriesDifferByEveryPartOfTheirKey() {
        var cache = ReplayTargetCache()
        cache.insert(Self.target("/a"), for: Self.key(#"{"id":1}"#))
        #expect(cache[Self.key(#"{"id":1}"#)]?.logTarget == "/a")
        #expect(cache[Self.key(#"{"id":2}"#)] == nil)
        #expect(cache[Self.key(#"{"id":1} "#)] == nil, "bytes, not meaning: the keyer decides what is equal")
        #expect(cache[Self.key(#"{"id":1}"#, contentType: "text/plain")] == nil)
        #expect(cache[Self.key(#"{"id":1}"#, contentType: nil)] == nil)
        #expect(cache[Self.key(#"{"id":1}"#, operationName: "GetUser")] == nil)
        // A view into a larger buffer finds the entry by its bytes alone.
        var larger = ByteBuffer(string: #"xx{"id":1}yy"#)
        larger.moveReaderIndex(forwardBy: 2)
        let view = larger.getSlice(at: larger.readerIndex, length: 8)!
        #expect(cache[CachedTarget.BodyKey(method: .post, uri: "/graphql", contentType: "application/json", operationName: nil, body: view)] != nil)
    }

    @Test func largeBodiesAreNotCachedAndTheBytesAreBounded() {
        var cache = ReplayTargetCache()
        let large = String(repeating: "x", count: ReplayTargetCache.bodyLimit + 1)
        cache.insert(Self.target("/large"), for: Self.key(large))
        #expect(cache[Self.key(large)] == nil)
        #expect(cache.bodyCount.entries == 0)

        let size = ReplayTargetCache.bodyLimit
        let fitting = ReplayTargetCache.bodyBytesLimit / size
        for index in 0..<fitting {
            cache.insert(Self.target("/\(index)"), for: Self.key(String(format: "%05d", index) + String(repeating: "x", count: size - 5)))
        }
        #expect(cache.bodyCount == (fitting, fitting * size))
        // One more would pass the byte bound: the cache starts over with it alone.
        cache.insert(Self.target("/next"), for: Self.key("next" + String(repeating: "x", count: size - 4)))
        #expect(cache.bodyCount == (1, size))
        // The same key again counts its bytes once.
        cache.insert(Self.target("/next"), for: Self.key("next" + String(repeating: "x", count: size - 4)))
        #expect(cache.bodyCount == (1, size))
    }

    @Test func theEntryCountIsBounded() {
        var cache = ReplayTargetCache()
        for index in 0..<ReplayTargetCache.limit {
            cache.insert(Self.target("/\(index)"), for: Self.key("\(index)"))
        }
        #expect(cache.bodyCount.entries == ReplayTargetCache.limit)
        cache.insert(Self.target("/more"), for: Self.key("more"))
        #expect(cache.bodyCount.entries == 1)
        #expect(cache[Self.key("more")] != nil && cache[Self.key("0")] == nil)
    }
}
