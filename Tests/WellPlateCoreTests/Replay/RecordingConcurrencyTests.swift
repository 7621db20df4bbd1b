import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Many requests at once through one `RecordingTransport`: every exchange becomes exactly one row,
/// and repeats of one key get consecutive positions.
@Suite("Concurrent recording")
final class RecordingConcurrencyTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "concurrent-recording")
    }

    var store: String { directory.path() }

    /// Sends `flakyPath(names[i])` for every i at the same time; returns the attempts received.
    func sendAllAtOnce(_ names: [String], base: URL) async throws -> [String: [Int]] {
        try await withRecordingTransport(path: store, mode: .missing) { transport in
            try await withThrowingTaskGroup(of: (String, Int).self) { group in
                for name in names {
                    group.addTask { (name, try await transport.flaky(base, name)) }
                }
                var attempts: [String: [Int]] = [:]
                for try await (name, attempt) in group {
                    attempts[name, default: []].append(attempt)
                }
                return attempts
            }
        }
    }

    @Test func twoHundredParallelRepeatsOfOneKeyGetSequencesZeroToN() async throws {
        try await withSampleAPI { base in
            let attempts = try await sendAllAtOnce(Array(repeating: "same", count: 200), base: base)
            #expect(attempts["same"]?.sorted() == Array(1...200), "every request went upstream once")
            let rows = try await storedInteractions(store)
            #expect(rows.count == 200)
            #expect(Set(rows.map(\.key)) == [flakyKey("same")])
            #expect(rows.map(\.sequence) == Array(0..<200))
            #expect(Set(try rows.map { try $0.flakyAttempt() }) == Set(1...200))
        }
    }

    @Test func twoHundredParallelRequestsOverFourKeysNumberEachKeyWithoutGapsOrDuplicates() async throws {
        try await withSampleAPI { base in
            let names = (0..<200).map { "k\($0 % 4)" }
            _ = try await sendAllAtOnce(names, base: base)
            let rows = try await storedInteractions(store)
            #expect(rows.count == 200)
            for key in 0..<4 {
                let sequences = rows.filter { $0.key == flakyKey("k\(key)") }.map(\.sequence)
                #expect(sequences == Array(0..<50), "key k\(key)")
            }
        }
    }
}
