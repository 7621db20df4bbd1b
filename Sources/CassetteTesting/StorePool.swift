import Foundation
import WellPlateCore
import WellPlateNetworking

/// The store files open for the tests running at the moment: one connection per file (and
/// access) however many tests use it, closed when the last of them ends, so a recording store is
/// checkpointed into the single file that gets committed. Only files are shared here; every test
/// opens its own session on them.
actor StorePool {
    static let shared = StorePool()

    private struct Key: Hashable {
        var path: String
        var writable: Bool
    }

    private struct Entry {
        var opening: Task<CassetteStore, any Error>
        var users: Int
    }

    private var entries: [Key: Entry] = [:]

    func acquire(path: String, writable: Bool) async throws -> CassetteStore {
        let key = Key(path: path, writable: writable)
        if entries[key] == nil {
            entries[key] = Entry(opening: Task { try await Self.open(path: path, writable: writable) }, users: 0)
        }
        entries[key]?.users += 1
        guard let opening = entries[key]?.opening else { throw CancellationError() }
        do {
            return try await opening.value
        } catch {
            await release(path: path, writable: writable)
            throw error
        }
    }

    func release(path: String, writable: Bool) async {
        let key = Key(path: path, writable: writable)
        guard var entry = entries[key] else { return }
        entry.users -= 1
        guard entry.users == 0 else {
            entries[key] = entry
            return
        }
        entries[key] = nil
        try? await entry.opening.value.close()
    }

    private static func open(path: String, writable: Bool) async throws -> CassetteStore {
        if writable {
            try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            return try await CassetteStore.open(path: path, access: .readWrite)
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CassetteTestingError(
                "\(path) does not exist, so there is nothing to replay; record it by running the tests once outside CI (or with CASSETTE_RECORD=once), then commit it"
            )
        }
        return try await CassetteStore.open(path: path, access: .readOnly)
    }
}
