import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette prune`: deletes recordings older than a number of days.
struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete recordings older than a number of days.",
        discussion: """
            Deletes every recording made more than DAYS days ago (fractions allowed: 0.5 is twelve \
            hours), in --cassette or in every cassette, and prints how many went. WebSocket \
            conversations count as recordings: one recorded before the cut-off goes with its messages. \
            --dry-run deletes \
            nothing: it prints how many would go and lists them. Re-record what you still need with \
            `cassette record`.

            Examples:
              cassette prune --older-than 30 --dry-run
              cassette prune --older-than 30
              cassette prune --older-than 0.25 --cassette staging
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Delete recordings made more than this many days ago (a positive number).", valueName: "days"))
    var olderThan: Double

    @Flag(help: "Print what would be deleted without deleting it.")
    var dryRun = false

    func validate() throws {
        guard olderThan.isFinite, olderThan > 0 else {
            throw ValidationError("--older-than must be a positive number of days, got \(olderThan)")
        }
    }

    enum Outcome: Sendable {
        case noSuchCassette(known: [String])
        case wouldDelete([InteractionSummary], conversations: [Conversation])
        case deleted(RemovedRecordings)
    }

    func run() async throws {
        let configFile = try store.loadConfig()
        let cutoff = Date(timeIntervalSinceNow: -olderThan * 86_400)
        let scope = KeyLookup.scope(path: configFile.databasePath, cassette: store.cassette)
        let filter = store.cassette
        let days = olderThan == olderThan.rounded() && olderThan < 1e15 ? String(Int64(olderThan)) : String(olderThan)
        let age = "older than \(days) \(olderThan == 1 ? "day" : "days") (recorded before \(Formatting.timestamp(cutoff)))"
        // Counted read-only first: pruning nothing (or a wrong --cassette) leaves the file as it was,
        // where a writable connection would rewrite its header (WAL and back).
        let planned = try await store.openStore(configFile, access: .readOnly).use { store throws(CassetteStoreError) -> Outcome in
            if let filter {
                let known = try store.cassettes().map(\.name)
                guard known.contains(filter) else { return .noSuchCassette(known: known) }
            }
            return .wouldDelete(
                try store.summaries(cassette: filter).filter { $0.recordedAt < cutoff },
                conversations: try store.conversations(cassette: filter).filter { $0.recordedAt < cutoff })
        }
        var outcome = planned
        if !dryRun, case .wouldDelete(let doomed, let conversations) = planned {
            outcome = .deleted(RemovedRecordings())
            if !doomed.isEmpty || !conversations.isEmpty {
                outcome = .deleted(
                    try await store.openStore(configFile, access: .readWrite).use { store throws(CassetteStoreError) in
                        try store.prune(recordedBefore: cutoff, cassette: filter)
                    })
            }
        }
        switch outcome {
        case .noSuchCassette(let known):
            throw CLIError(CassetteStoreError.missingCassette(filter, path: configFile.databasePath, available: known).message + "; nothing pruned")
        case .wouldDelete(let doomed, let conversations):
            let lines =
                doomed.map { "  \($0.cassette)  \($0.key)  [\($0.sequence)]  \(Formatting.timestamp($0.recordedAt))" }
                + conversations.map { "  \($0.cassette)  WebSocket \($0.key)  [\($0.sequence)]  \(Formatting.timestamp($0.recordedAt))" }
            let count = ConversationReport.count(recordings: doomed.count, conversations: conversations.count)
            Terminal.printLine((["Would delete \(count) \(age) from \(scope)."] + lines).joined(separator: "\n"))
        case .deleted(let removed):
            Terminal.printLine("Deleted \(ConversationReport.count(removed)) \(age) from \(scope).")
        }
    }
}
