import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// Group commit: recordings that arrive while a transaction is written share the next one, in
/// arrival order, and each caller hears the fate of its own transaction. Batches are formed
/// deterministically by holding the write lock with a second connection: the store's first
/// transaction waits in `BEGIN IMMEDIATE` while the rest queue behind it.
@Suite("Group commit")
final class GroupCommitTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "group-commit")
    }

    var path: String { directory.path() }

    static func interaction(_ target: String, key: String? = nil) -> Interaction {
        Interaction(
            cassette: "dev", method: .get, url: "http://127.0.0.1:1\(target)", key: key ?? "GET \(target)", statusCode: 200, responseBody: Data(target.utf8))
    }

    /// A store with the write lock held by another connection until `release` is called.
    struct Locked {
        let store: CassetteStore
        let blocker: SQLiteConnection

        func release() throws {
            try blocker.execute("ROLLBACK")
        }
    }

    func lockedStore() async throws -> Locked {
        let store = try await CassetteStore.open(path: path, access: .readWrite, busyTimeout: .seconds(60))
        let blocker = try SQLiteConnection(path: path, mode: .readWrite)
        try blocker.execute("BEGIN IMMEDIATE")
        return Locked(store: store, blocker: blocker)
    }

    /// Waits (without a deadline of its own; the busy timeout bounds it) until the queue is in `state`.
    func waitUntil(_ store: CassetteStore, _ condition: @escaping ((pending: Int, inFlight: Int)) -> Bool) async throws {
        while !condition(store.recordingQueue.waiting) {
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Starts recording `interaction` and returns once it waits in the queue, so batches hold
    /// interactions in the order of the calls.
    func enqueue(_ interaction: Interaction, into store: CassetteStore, replacingRowsUpTo row: Int64? = nil) async throws -> Task<Interaction, any Error> {
        let before = store.recordingQueue.waiting
        let task = Task { try await store.record(interaction, replacingRowsUpTo: row) }
        try await waitUntil(store) { $0.pending + $0.inFlight == before.pending + before.inFlight + 1 }
        return task
    }

    @Test func sixtyFourConcurrentRecordingsShareTwoTransactions() async throws {
        let locked = try await lockedStore()
        let store = locked.store
        let tasks = (0..<64).map { number in
            Task { try await store.record(Self.interaction("/api/items/\(number % 4)")) }
        }
        // The first transaction waits for the lock with whatever had arrived when it started
        // (all 64 on a busy machine); the rest queue for one more.
        try await waitUntil(store) { $0.inFlight > 0 && $0.pending + $0.inFlight == 64 }
        let firstBatch = store.recordingQueue.waiting.inFlight
        try locked.release()
        var stored: [Interaction] = []
        for task in tasks { stored.append(try await task.value) }

        #expect(store.recordingQueue.committed == (transactions: firstBatch == 64 ? 1 : 2, interactions: 64))
        try await store.close()
        let rows = try await storedInteractions(path)
        #expect(rows.count == 64)
        for key in 0..<4 {
            #expect(rows.filter { $0.key == "GET /api/items/\(key)" }.map(\.sequence) == Array(0..<16), "key \(key)")
        }
        #expect(Set(stored.map(\.id)) == Set(rows.map(\.id)), "each caller got its own row back")
        try locked.blocker.close()
    }

    @Test func aBatchKeepsArrivalOrderForSequencesAndReplacesOnlyRowsFromBeforeTheSession() async throws {
        let old = try await fillStore(path, with: [Self.interaction("/a"), Self.interaction("/a"), Self.interaction("/b")])
        let rowsBeforeSession = try #require(old.last?.id)
        let locked = try await lockedStore()
        let store = locked.store
        // Holds the lock-waiting first transaction, so the next four form one batch in this order.
        let first = try await enqueue(Self.interaction("/z"), into: store)
        try await waitUntil(store) { $0.inFlight == 1 && $0.pending == 0 }
        var batch: [Task<Interaction, any Error>] = []
        for target in ["/a", "/a", "/b", "/c"] {
            batch.append(try await enqueue(Self.interaction(target), into: store, replacingRowsUpTo: rowsBeforeSession))
        }
        #expect(store.recordingQueue.waiting == (pending: 4, inFlight: 1))
        try locked.release()
        _ = try await first.value
        let stored = try await batch.asyncMap { try await $0.value }

        #expect(store.recordingQueue.committed == (transactions: 2, interactions: 5))
        #expect(stored.map(\.sequence) == [0, 1, 0, 0])
        #expect(stored.compactMap(\.id) == stored.compactMap(\.id).sorted(), "inserted in arrival order")
        try await store.close()
        let rows = try await storedInteractions(path)
        #expect(rows.filter { $0.key == "GET /a" }.map(\.id) == [stored[0].id, stored[1].id], "the old /a rows are replaced, the batch's first /a is kept")
        #expect(rows.filter { $0.key == "GET /b" }.map(\.id) == [stored[2].id])
        #expect(rows.filter { $0.key == "GET /c" }.map(\.sequence) == [0])
        try locked.blocker.close()
    }

    @Test func aFailingRecordingFailsOnlyItsCallerAndAFailedTransactionOnlyItsBatch() async throws {
        let earlier = try await fillStore(path, with: [Self.interaction("/earlier")])
        let locked = try await lockedStore()
        let store = locked.store
        // One recording fails alone (ABORT undoes its statement); another dooms its whole
        // transaction (ROLLBACK), as a full disk or an I/O error does.
        try locked.blocker.execute(
            """
            CREATE TRIGGER poison BEFORE INSERT ON interactions WHEN new.url LIKE '%poison%' BEGIN SELECT RAISE(ABORT, 'poisoned recording'); END;
            CREATE TRIGGER doom BEFORE INSERT ON interactions WHEN new.url LIKE '%doom%' BEGIN SELECT RAISE(ROLLBACK, 'doomed transaction'); END;
            """)
        let first = try await enqueue(Self.interaction("/first"), into: store)
        try await waitUntil(store) { $0.inFlight == 1 && $0.pending == 0 }
        var mixed: [Task<Interaction, any Error>] = []
        for target in ["/ok-1", "/poison", "/ok-2"] {
            mixed.append(try await enqueue(Self.interaction(target), into: store))
        }
        try locked.blocker.execute("COMMIT")
        _ = try await first.value
        let ok1 = try await mixed[0].value
        let poisoned = await #expect(throws: CassetteStoreError.self) { try await mixed[1].value }
        #expect(poisoned?.message.contains("poisoned recording") == true, "\(String(describing: poisoned))")
        let ok2 = try await mixed[2].value
        #expect(store.recordingQueue.committed.transactions == 2, "the poisoned recording shared its transaction")

        // A transaction the failure rolls back: all of its callers fail, nothing else is lost.
        try locked.blocker.execute("BEGIN IMMEDIATE")
        let holder = try await enqueue(Self.interaction("/holder"), into: store)
        try await waitUntil(store) { $0.inFlight == 1 && $0.pending == 0 }
        var doomed: [Task<Interaction, any Error>] = []
        for target in ["/lost-1", "/doom", "/lost-2"] {
            doomed.append(try await enqueue(Self.interaction(target), into: store))
        }
        try locked.release()
        _ = try await holder.value
        for task in doomed {
            let error = await #expect(throws: CassetteStoreError.self) { try await task.value }
            #expect(error?.message.contains("doomed transaction") == true, "\(String(describing: error))")
        }
        let after = try await store.record(Self.interaction("/after"))
        try await store.close()

        let rows = try await storedInteractions(path)
        #expect(Set(rows.map(\.url)) == Set(["/earlier", "/first", "/ok-1", "/ok-2", "/holder", "/after"].map { "http://127.0.0.1:1\($0)" }))
        let kept = rows.first { $0.url.hasSuffix("/earlier") }
        #expect(kept?.id == earlier.first?.id && kept?.responseBody == earlier.first?.responseBody, "the earlier row is untouched")
        #expect(Set([ok1.id, ok2.id, after.id]).isSubset(of: Set(rows.map(\.id))))
        try locked.blocker.close()
    }

    @Test(arguments: [CassetteStore.Durability.normal, .full])
    func durabilitySetsSQLitesSynchronousLevel(_ durability: CassetteStore.Durability) async throws {
        let store = try await CassetteStore.open(path: path, access: .readWrite, durability: durability)
        #expect(store.durability == durability)
        #expect(try await store.synchronousLevel() == (durability == .full ? .full : .normal))
        try await store.record(Self.interaction("/durable"))
        try await store.close()
        #expect(try await storedInteractions(path).count == 1)
    }

    @Test func theDefaultDurabilityIsNormal() async throws {
        let store = try await CassetteStore.open(path: path, access: .readWrite)
        #expect(store.durability == .normal)
        #expect(try await store.synchronousLevel() == .normal)
        try await store.close()
    }
}

extension Array where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
