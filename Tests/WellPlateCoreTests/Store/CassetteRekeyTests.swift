import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// A cassette's stored keys follow its matching rules and the key format: when either changes,
/// opening the cassette recomputes them (in the file when recording, in memory when replaying), so
/// recordings made under the old rules keep matching.
@Suite("Rekeying cassettes")
final class CassetteRekeyTests {
    let directory: TemporaryDirectory
    var store: String { directory.path() }
    let ignoringTS = MatchingRules(ignoredQueryParameters: ["ts"])

    init() throws {
        directory = try TemporaryDirectory(prefix: "rekey")
    }

    func recording(_ target: String, _ body: String, at seconds: TimeInterval) -> Interaction {
        Recordings.make(.get, target, body: Data(body.utf8), recordedAt: Recordings.recordedAt.addingTimeInterval(seconds))
    }

    /// Replays `targets` in order from a read-only session that uses the rules the cassette saved.
    func replayedBodies(_ targets: String...) async throws -> [String] {
        let store = try await CassetteStore.open(path: self.store, access: .readOnly)
        let session = try await CassetteSession.open(store: store, options: .init(mode: .replayOnly))
        var bodies: [String] = []
        for target in targets {
            do {
                let response = try session.replay(TransportRequest(method: .get, url: URL(string: "http://127.0.0.1:1" + target)!)).response
                bodies.append(String(decoding: response.body, as: UTF8.self))
            } catch is CassetteMiss {
                bodies.append("miss")
            }
        }
        try await store.close()
        return bodies
    }

    @Test func recordingWithNewRulesRewritesTheStoredKeysInRecordedOrder() async throws {
        try await fillStore(
            store, with: [recording("/api/items?ts=1", "first", at: 0), recording("/api/items?ts=2", "second", at: 1)], cassettes: [CassetteInfo(name: "dev")])
        #expect(try await replayedBodies("/api/items?ts=9") == ["miss"], "the recorded rules keep ts")

        let writable = try await CassetteStore.open(path: store, access: .readWrite)
        _ = try await CassetteSession.open(store: writable, options: .init(mode: .missing, matchingRules: ignoringTS))
        try await writable.close()

        let stored = try await storedInteractions(store)
        #expect(stored.map(\.key) == ["GET /api/items", "GET /api/items"])
        #expect(stored.map { String(decoding: $0.responseBody, as: UTF8.self) } == ["first", "second"])
        #expect(stored.map(\.sequence) == [0, 1])
        #expect(try await replayedBodies("/api/items?ts=9", "/api/items?ts=10", "/api/items") == ["first", "second", "second"])
    }

    @Test func rekeyingTwiceChangesNothing() async throws {
        try await fillStore(store, with: [recording("/api/items?ts=1", "first", at: 0), recording("/api/other", "other", at: 1)])
        let writable = try await CassetteStore.open(path: store, access: .readWrite)
        #expect(try await writable.rekey(cassette: "dev", rules: ignoringTS) == 1)
        #expect(try await writable.rekey(cassette: "dev", rules: ignoringTS) == 0)
        try await writable.close()
        #expect(try await storedInteractions(store).map(\.key).sorted() == ["GET /api/items", "GET /api/other"])
    }

    @Test func keysOfAnOlderFormatAreRecomputedOnReplay() async throws {
        var stale = recording("/api/x", "x", at: 0)
        stale.key = "GET /stale"
        try await fillStore(store, with: [stale], cassettes: [CassetteInfo(name: "dev", keyFormat: RequestKey.formatVersion - 1)])
        #expect(try await replayedBodies("/api/x") == ["x"])
        #expect(try await storedInteractions(store).map(\.key) == ["GET /stale"], "replay never writes")
    }

    @Test func aConditionalRecordingOfFormatTwoGetsItsHeaderKeyOnOpen() async throws {
        // Format 2 keyed conditional requests like plain ones: a fresh client could get the 304.
        var conditional = Recordings.make(.get, "/api/etag", status: 304, requestHeaders: [.ifNoneMatch: "\"v1\""], body: Data())
        conditional.key = "GET /api/etag"
        try await fillStore(store, with: [conditional], cassettes: [CassetteInfo(name: "dev", keyFormat: 2)])
        #expect(try await replayedBodies("/api/etag") == ["miss"])
        let readOnly = try await CassetteStore.open(path: store, access: .readOnly)
        let session = try await CassetteSession.open(store: readOnly, options: .init(mode: .replayOnly))
        let request = TransportRequest(method: .get, url: URL(string: "http://127.0.0.1:1/api/etag")!, headerFields: [.ifNoneMatch: "\"v1\""])
        let replayed = try session.replay(request).response
        #expect(replayed.statusCode == 304)
        try await readOnly.close()
    }

    @Test func keysOfTheCurrentFormatAreTrusted() async throws {
        var stale = recording("/api/x", "x", at: 0)
        stale.key = "GET /stale"
        try await fillStore(store, with: [stale], cassettes: [CassetteInfo(name: "dev")])
        #expect(try await replayedBodies("/api/x") == ["miss"], "no rekeying without a reason: the stored key is used as it is")
    }

    @Test func aCassetteSavedBeforeTheFormatWasRememberedHoldsVersionOneKeys() async throws {
        try await fillStore(store, with: [recording("/api/x", "x", at: 0)], cassettes: [CassetteInfo(name: "dev")])
        let connection = try SQLiteConnection(path: store)
        try connection.execute(
            #"UPDATE cassettes SET matching_rules = '{"ignoredQueryParameters":[],"ignoredBodyFields":[],"includeBodyFingerprint":true,"includeHost":false}'"#)
        try connection.close()
        let reader = try await CassetteStore.open(path: store, access: .readOnly)
        let info = try await reader.cassette(named: "dev")
        try await reader.close()
        #expect(info?.keyFormat == 1)
        #expect(info?.matchingRules == .default)
    }
}
