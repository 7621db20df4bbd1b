import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Identical requests recorded several times replay in recorded order; what happens after the last
/// one is the sequence policy's choice.
@Suite("Replay sequences")
final class ReplaySequenceTests {
    let directory: TemporaryDirectory
    let base = URL(string: "http://127.0.0.1:8081")!

    init() throws {
        directory = try TemporaryDirectory(prefix: "replay-sequences")
    }

    var store: String { directory.path() }

    /// Records one `/api/flaky` answer per name, in order, numbered per name as the upstream would
    /// number its hits; the store gives repeats of a key the sequences 0, 1, 2, …
    func record(_ names: String...) async throws {
        var hits: [String: Int] = [:]
        try await fillStore(
            store,
            with: names.map { name in
                hits[name, default: 0] += 1
                // Stored as the recorder stores it: with the secret `key` already redacted.
                let target = "/api/flaky?failures=0&key=\(Redactor.placeholder)&id=id-\(name)"
                return Recordings.make(.get, target, body: Data(#"{"attempts":\#(hits[name]!),"key":"\#(name)"}"#.utf8))
            })
    }

    func replay(_ transport: ReplayTransport, _ names: String...) async throws -> [Int] {
        var attempts: [Int] = []
        for name in names {
            attempts.append(try await transport.flaky(base, name))
        }
        return attempts
    }

    @Test func repeatsReplayInRecordedOrderAndTheLastOneRepeatsByDefault() async throws {
        try await record("a", "a", "a")
        let stored = try await storedInteractions(store)
        #expect(stored.map(\.sequence) == [0, 1, 2])
        let transport = try await replayTransport(path: store)
        #expect(try await replay(transport, "a", "a", "a", "a", "a") == [1, 2, 3, 3, 3])
    }

    @Test func cyclePolicyStartsAgainFromTheFirstRecording() async throws {
        try await record("a", "a", "a")
        let transport = try await replayTransport(path: store, sequencePolicy: .cycle)
        #expect(try await replay(transport, "a", "a", "a", "a", "a", "a", "a") == [1, 2, 3, 1, 2, 3, 1])
    }

    @Test func failPolicyThrowsCassetteMissNamingHowManyRecordingsWereServed() async throws {
        try await record("a", "a", "a")
        let transport = try await replayTransport(path: store, sequencePolicy: .fail)
        #expect(try await replay(transport, "a", "a", "a") == [1, 2, 3])
        for _ in 0..<2 {
            let miss = try await #require(throws: CassetteMiss.self) { try await transport.flaky(self.base, "a") }
            #expect(miss.exhaustedAfter == 3)
            #expect(miss.key == flakyKey("a"))
            #expect(miss.description.contains("All 3 recording(s) of \(flakyKey("a")) in cassette \"dev\" (\(store)) were already replayed"))
        }
    }

    @Test func eachKeyKeepsItsOwnPlaceInItsSequence() async throws {
        try await record("a", "b", "a", "b", "b")
        let transport = try await replayTransport(path: store)
        #expect(try await replay(transport, "b", "a", "b", "b", "a", "a", "b") == [1, 1, 2, 3, 2, 2, 3])
    }

    @Test func replayAPIClientHonoursTheSequencePolicyItIsOpenedWith() async throws {
        try await record("a", "a")
        let url = base.appending(pathAndQuery: flakyPath("a"))
        let cycling = try await ReplayAPIClient.open(path: store, cassette: "dev", sequencePolicy: .cycle)
        var attempts: [Int] = []
        for _ in 0..<3 {
            attempts.append(try await cycling.get(url: url, responseType: FlakyResult.self).attempts)
        }
        #expect(attempts == [1, 2, 1])
        let failing = try await ReplayAPIClient.open(path: store, cassette: "dev", sequencePolicy: .fail)
        _ = try await failing.get(url: url, responseType: FlakyResult.self)
        _ = try await failing.get(url: url, responseType: FlakyResult.self)
        let miss = try await #require(throws: CassetteMiss.self) { try await failing.get(url: url, responseType: FlakyResult.self) }
        #expect(miss.exhaustedAfter == 2)
    }
}
