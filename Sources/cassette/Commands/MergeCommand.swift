import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette merge`: a git merge driver for cassette stores.
struct MergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge two versions of a cassette store against their common base (a git merge driver).",
        discussion: """
            Three-way merge recording by recording (a recording is its cassette, key and sequence \
            position): what either side added, changed or deleted against BASE is kept. WebSocket \
            conversations merge the same way, each whole with its messages and at its own sequence \
            position; one re-recorded with the same messages (only its offsets, time and \
            Sec-WebSocket-Key differ) is no change. A recording \
            changed differently on both sides (or changed on one side and deleted on the other, or \
            added differently on both) is a conflict: without --prefer the command lists the \
            conflicts by key, leaves OURS untouched and exits with status 1; with --prefer ours or \
            theirs it takes that side's version. The result replaces OURS atomically, and only after \
            it passed SQLite's integrity check. An empty BASE file (no common ancestor) counts as an \
            empty store.

            As git's merge driver for cassettes.db:
              echo 'cassettes.db merge=cassette' >> .gitattributes
              git config merge.cassette.driver "cassette merge %O %A %B"
              git config merge.cassette.name "cassette recordings"

            Examples:
              cassette merge base.db ours.db theirs.db
              cassette merge base.db ours.db theirs.db --prefer theirs
            """
    )

    @Argument(help: ArgumentHelp("The common ancestor (git's %O).", valueName: "base"))
    var base: String

    @Argument(help: ArgumentHelp("Our version, replaced by the result (git's %A).", valueName: "ours"))
    var ours: String

    @Argument(help: ArgumentHelp("Their version (git's %B).", valueName: "theirs"))
    var theirs: String

    @Option(help: ArgumentHelp("Resolve conflicts with this side's recordings: ours or theirs.", valueName: "side"))
    var prefer: MergeSideOption?

    @OptionGroup var progressFlags: ProgressFlags

    func run() async throws {
        if let refusal = MergeFiles.replacementRefusal(of: ours) { throw CLIError(refusal) }
        // A merge killed before its rename left its temporary files beside OURS; they carry its pid.
        MergeFiles.removeStaleTemporaries(for: ours)
        let progress = progressFlags.line()
        defer { progress.finish() }
        // Only BASE may be empty (no common ancestor): an empty OURS or THEIRS is a damaged
        // checkout, and merging it would silently drop every recording of the other side.
        let baseSnapshot = try await snapshot(base, role: "BASE", allowEmpty: true, progress: progress)
        let ourSnapshot = try await snapshot(ours, role: "OURS", allowEmpty: false, progress: progress)
        let theirSnapshot = try await snapshot(theirs, role: "THEIRS", allowEmpty: false, progress: progress)
        progress.status("merging")
        let result = CassetteMerge(preferring: prefer?.side).merge(base: baseSnapshot, ours: ourSnapshot, theirs: theirSnapshot)
        if !result.conflicts.isEmpty && prefer == nil {
            progress.finish()
            let list = result.conflicts.map { "  conflict: \($0)" }.joined(separator: "\n")
            StandardStream.error.write(list + "\n")
            throw CLIError(
                "\(Formatting.count(result.conflicts.count, "recording")) changed on both sides; \(ours) is left as it was. Re-record them, or merge again with --prefer ours or --prefer theirs"
            )
        }
        try await write(result, progress: progress)
        progress.finish()
        let merged = ConversationReport.count(recordings: result.interactions.count, conversations: result.conversations.count)
        var summary = "Merged \(ours): \(merged), \(result.takenFromTheirs) taken from theirs"
        if !result.conflicts.isEmpty {
            summary += ", \(Formatting.count(result.conflicts.count, "conflict")) resolved with \(prefer?.rawValue ?? "ours")"
            for conflict in result.conflicts {
                StandardStream.error.write("  resolved with \(prefer?.rawValue ?? "ours"): \(conflict)\n")
            }
        }
        Terminal.printLine(summary + ".")
    }

    /// `path`'s recordings, after SQLite's integrity check: a truncated file can open and read
    /// as a store that just has fewer recordings.
    private func snapshot(_ path: String, role: String, allowEmpty: Bool, progress: ProgressLine) async throws(CLIError) -> CassetteMerge.Snapshot {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if size == 0 {
            if allowEmpty { return CassetteMerge.Snapshot() }
            throw CLIError("\(role) \(path) is empty, not a cassette store; check out a complete version of it and merge again (\(ours) is left as it was)")
        }
        let read: (problems: [String], snapshot: CassetteMerge.Snapshot)
        do {
            read = try await Self.read(path, role: role, progress: progress)
        } catch {
            throw CLIError("\(role) \(error.message); merge again once it is fixed (\(ours) is left as it was)")
        }
        guard read.problems.isEmpty else {
            throw CLIError(
                "\(role) \(path) is damaged or truncated (\(read.problems.prefix(2).joined(separator: "; "))); restore it and merge again (\(ours) is left as it was)"
            )
        }
        return read.snapshot
    }

    private static func read(
        _ path: String, role: String, progress: ProgressLine
    ) async throws(CassetteStoreError) -> (problems: [String], snapshot: CassetteMerge.Snapshot) {
        let store = try await CassetteStore.open(path: path, access: .readOnly)
        do {
            progress.status("checking \(role)")
            let problems = try await store.integrityCheck()
            var snapshot = CassetteMerge.Snapshot()
            if problems.isEmpty {
                let read = progress.step("reading \(role)", unit: "recordings")
                snapshot = CassetteMerge.Snapshot(
                    cassettes: try await store.cassetteInfos(), interactions: try await store.interactions(cassette: nil, progress: read),
                    learnedSecrets: try await store.learnedSecretDigests(), conversations: try await store.conversations(cassette: nil))
            }
            try await store.close()
            return (problems, snapshot)
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// Builds the result beside OURS, checks it, then renames it over OURS.
    private func write(_ result: CassetteMerge.Result, progress: ProgressLine) async throws {
        let temporary = MergeFiles.temporaryPath(for: ours)
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: temporary + suffix) }
        }
        do {
            let store = try await CassetteStore.open(path: temporary, access: .readWrite)
            let written = progress.step("writing", unit: "recordings")
            try await store.use { store throws(CassetteStoreError) in
                for info in result.cassettes { try store.saveCassette(info) }
                try store.record(batch: result.interactions, progress: written)
                try store.saveLearnedSecrets(result.learnedSecrets)
                try store.storeConversations(result.conversations)
            }
            progress.status("checking the result")
            let check = try await CassetteStore.open(path: temporary, access: .readOnly)
            let problems = try await check.use { store throws(CassetteStoreError) in try store.integrityCheck() }
            guard problems.isEmpty else {
                throw CLIError("the merged store failed SQLite's integrity check (\(problems.prefix(3).joined(separator: "; "))); \(ours) is left as it was")
            }
        } catch let error as CassetteStoreError {
            throw CLIError("cannot write the merged store next to \(ours): \(error.message)")
        }
        // The result is a new file: it takes OURS's mode and owner, so the rename changes only content.
        try MergeFiles.copyOwnership(from: ours, to: temporary)
        guard rename(temporary, ours) == 0 else {
            throw CLIError("cannot replace \(ours) with the merged store (\(String(cString: strerror(errno)))); it is left as it was")
        }
    }
}

enum MergeSideOption: String, ExpressibleByArgument, CaseIterable {
    case ours, theirs

    var side: CassetteMerge.Side {
        switch self {
        case .ours: .ours
        case .theirs: .theirs
        }
    }
}
