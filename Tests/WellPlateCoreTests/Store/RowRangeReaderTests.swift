import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// A large cassette loads in two halves on two threads: the index must come out exactly as one
/// thread reading every row would build it.
@Suite("Loading a cassette on two threads")
final class RowRangeReaderTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "parallel-load")
    }

    /// Every key's recordings in the order `next` serves them, as body texts.
    func sequences(_ index: ReplayIndex) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for key in index.keys {
            while case .hit(let interaction, repeated: false) = index.next(for: key) {
                result[key, default: []].append(String(decoding: interaction.responseBody, as: UTF8.self))
            }
        }
        return result
    }

    @Test func twoThreadsBuildTheIndexOneThreadWould() async throws {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        // Keys recur across the whole store, so both halves hold recordings of the same keys.
        let rows = (0..<60).map { number in Recordings.make(.get, "/k\(number % 7)", body: Data("row \(number)".utf8)) }
        try await store.record(batch: rows + [Recordings.make(.get, "/other", cassette: "other")])
        let parallel = try await store.replayIndex(cassette: "dev", sequencePolicy: .fail, parallelFrom: 10)
        let serial = try await store.replayIndex(cassette: "dev", sequencePolicy: .fail, parallelFrom: .max)
        #expect(parallel.interactionCount == 60)
        let served = sequences(parallel)
        #expect(served == sequences(serial))
        #expect(served["GET /k3"] == stride(from: 3, to: 60, by: 7).map { "row \($0)" }, "recorded order across both halves")
        try await store.close()
    }
}
