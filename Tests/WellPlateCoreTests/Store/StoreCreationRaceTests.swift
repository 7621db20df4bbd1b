import Foundation
import TestSupport
import Testing
import WellPlateCore

/// A store being created is never seen half made: while several writers create the same new
/// store, readers that find the file open it as a complete (empty) store, never as "an empty
/// file, not a cassette store". Each round starts from no file; the rounds repeat the race.
@Suite("Creating a store while others open it")
struct StoreCreationRaceTests {
    @Test func readersNeverSeeAHalfMadeStore() async throws {
        let directory = try TemporaryDirectory(prefix: "create-race")
        var failures: [String] = []
        for round in 0..<25 {
            let path = directory.url.appendingPathComponent("round-\(round).db").path
            let errors = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        do {
                            try await CassetteStore.open(path: path, access: .readWrite).close()
                            return nil
                        } catch {
                            return "writer: \(error)"
                        }
                    }
                }
                for _ in 0..<8 {
                    group.addTask {
                        while !FileManager.default.fileExists(atPath: path) { try await Task.sleep(for: .microseconds(20)) }
                        do {
                            let store = try await CassetteStore.open(path: path, access: .readOnly)
                            _ = try await store.interactions(cassette: nil)
                            try await store.close()
                            return nil
                        } catch {
                            return "reader: \(error)"
                        }
                    }
                }
                var errors: [String] = []
                for try await error in group { if let error { errors.append(error) } }
                return errors
            }
            failures += errors.map { "round \(round): \($0)" }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".creating-") }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }
}
