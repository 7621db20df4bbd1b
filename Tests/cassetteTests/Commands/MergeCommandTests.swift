import Foundation
import TestSupport
import Testing
import WellPlateCore

/// `cassette merge` refuses inputs that would lose recordings (an empty or truncated OURS or
/// THEIRS; BASE alone may be empty) and a read-only OURS, leaving OURS byte for byte as it was;
/// the result keeps OURS's permissions.
@Suite("cassette merge with bad inputs")
final class MergeCommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// BASE with one recording, OURS and THEIRS each with one more, and enough rows for the files
    /// to span many pages (so a truncated copy loses some).
    func makeStores() async throws {
        let shared = (0..<150).map { Recordings.make(.get, "/api/items/\($0)", body: Data(String(repeating: "x", count: 400).utf8)) }
        try await workspace.record(shared, into: "base.db")
        try await workspace.record(shared + [Recordings.make(.get, "/api/ours")], into: "ours.db")
        try await workspace.record(shared + [Recordings.make(.get, "/api/theirs")], into: "theirs.db")
    }

    func truncate(_ name: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: workspace.path(name)))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: workspace.path(name)))
    }

    func empty(_ name: String) throws {
        try Data().write(to: URL(fileURLWithPath: workspace.path(name)))
    }

    func merge() async throws -> CommandResult {
        try await workspace.run("merge", "base.db", "ours.db", "theirs.db")
    }

    @Test(arguments: [("ours.db", "OURS"), ("theirs.db", "THEIRS")])
    func anEmptyOrTruncatedSideIsRefusedAndOursIsLeftAlone(_ side: (file: String, role: String)) async throws {
        for damage in [empty, truncate] {
            try await makeStores()
            try damage(side.file)
            let before = try StoreFingerprint(of: workspace.path("ours.db"))
            let result = try await merge()
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.hasPrefix("error: \(side.role) "), "\(result.stderr)")
            #expect(result.stderr.contains("ours.db is left as it was"))
            #expect(result.stderr.filter { $0 == "\n" }.count == 1)
            #expect(try StoreFingerprint(of: workspace.path("ours.db")) == before)
            for name in ["base.db", "ours.db", "theirs.db"] { try? FileManager.default.removeItem(atPath: workspace.path(name)) }
        }
    }

    @Test func anEmptyBaseStillMerges() async throws {
        try await makeStores()
        try empty("base.db")
        let result = try await merge()
        #expect(result.status == 0, "\(result)")
        #expect(try await workspace.count(in: "ours.db") == 152)
    }

    @Test func aReadOnlyOursIsRefusedNeverReplaced() async throws {
        try await makeStores()
        let path = workspace.path("ours.db")
        #expect(chmod(path, 0o444) == 0)
        let before = try StoreFingerprint(of: path)
        let result = try await merge()
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("ours.db is read-only"), "\(result.stderr)")
        #expect(try StoreFingerprint(of: path) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o444)
    }

    @Test func anImmutableOursIsRefusedNeverReplaced() async throws {
        try await makeStores()
        let path = workspace.path("ours.db")
        let before = try StoreFingerprint(of: path)
        let result = try await withReadOnlyFile(path) { try await merge() }
        #expect(result.status == 1, "\(result)")
        #expect(try StoreFingerprint(of: path) == before)
    }

    @Test func theResultKeepsTheModeOfOurs() async throws {
        try await makeStores()
        let path = workspace.path("ours.db")
        #expect(chmod(path, 0o640) == 0)
        let result = try await merge()
        #expect(result.status == 0, "\(result)")
        #expect(try await workspace.count(in: "ours.db") == 152)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o640)
    }

    @Test func theResultKeepsTheOwnerOfOurs() async throws {
        try await makeStores()
        let path = workspace.path("ours.db")
        // Only root can give a file away; anyone else checks that their own ids are kept.
        let owner: (uid: uid_t, gid: gid_t) = geteuid() == 0 ? (4321, 4322) : (getuid(), getgid())
        #expect(chown(path, owner.uid, owner.gid) == 0)
        let result = try await merge()
        #expect(result.status == 0, "\(result)")
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_uid == owner.uid && status.st_gid == owner.gid)
    }

    @Test func temporaryFilesOfAKilledMergeAreRemovedByTheNextOneAndNothingElse() async throws {
        try await makeStores()
        let gone = "99999999-\(UUID().uuidString)"  // above any pid_max: no such process
        let running = "\(getpid())-\(UUID().uuidString)"
        let stale = [".ours.db.merge-\(gone)", ".ours.db.merge-\(gone)-wal", ".ours.db.merge-\(gone)-journal"]
        let kept = [".ours.db.merge-\(running)", ".ours.db.merge-notes", ".theirs.db.merge-\(gone)"]
        for name in stale + kept { try workspace.write("left over", to: name) }
        let result = try await merge()
        #expect(result.status == 0, "\(result)")
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path))
        #expect(names.isDisjoint(with: stale))
        #expect(names.isSuperset(of: kept))
    }

    @Test func aFailedMergeLeavesNoTemporaryFiles() async throws {
        try await makeStores()
        try truncate("theirs.db")
        _ = try await merge()
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path).filter { $0.contains(".merge-") }.isEmpty)
    }
}
