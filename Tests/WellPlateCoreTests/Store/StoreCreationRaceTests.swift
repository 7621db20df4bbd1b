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

    /// A creator killed between building its file and linking it leaves `.NAME.creating-PID-UUID`
    /// (and SQLite's files beside it); the next creation removes those of processes that are
    /// gone, and nothing else.
    @Test func leftoversOfAKilledCreatorAreRemovedByTheNextCreation() async throws {
        let directory = try TemporaryDirectory(prefix: "create-leftovers")
        // A child that has exited: its pid is known to be gone (unless reused at once, which
        // would only keep its file).
        let gone = try await runToCompletion("/bin/sh", ["-c", "echo $$"], cwd: directory.url).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let stale = ".c.db.creating-\(gone)-\(UUID().uuidString)"
        let running = ".c.db.creating-\(getpid())-\(UUID().uuidString)"
        let names = [stale, stale + "-wal", stale + "-journal", running, ".c.db.creating-notes", ".other.db.creating-\(gone)-\(UUID().uuidString)"]
        for name in names {
            try Data("x".utf8).write(to: directory.url.appendingPathComponent(name))
        }
        try await CassetteStore.open(path: directory.url.appendingPathComponent("c.db").path, access: .readWrite).close()
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.url.path))
        #expect(!left.contains(stale) && !left.contains(stale + "-wal") && !left.contains(stale + "-journal"), "\(left)")
        #expect(left.isSuperset(of: [running, ".c.db.creating-notes", names[5], "c.db"]), "\(left)")
    }
}
