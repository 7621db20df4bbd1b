import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette redact`: applies today's redaction rules to what is already stored.
struct RedactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redact",
        abstract: "Apply the current redaction rules (cassette.json included) to the stored interactions.",
        discussion: """
            Rewrites every stored interaction of --cassette (or of every cassette) as recording \
            it today would store it: secret headers, cookies, query parameters and JSON fields \
            replaced, and their values scrubbed from the rest of the interaction. Keys are \
            recomputed (a secret in a URL path changes the key), one transaction per cassette. \
            Then the file is vacuumed with secure_delete on and its WAL truncated, so no copy of \
            a removed value stays in the file, its free pages or the WAL; with nothing to change, \
            the file is left byte for byte as it was. Stop recorders and \
            replayers using the store first. --dry-run prints what would change and writes \
            nothing. The remedy for a `cassette audit` finding: add the rule it names to \
            cassette.json, run `cassette redact`, run `cassette audit` again.

            WebSocket conversations are rewritten too: the handshake as a request, and every text \
            or binary message as the recorder redacts one (secret JSON fields, the handshake's \
            secrets, learned secrets), plus the token shapes `cassette audit` reports as high \
            severity; those values are learned, so a replay still matches the live message that \
            carries the real value.

            Examples:
              cassette redact --dry-run
              cassette redact --cassette staging
            """
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print what would change; write nothing.")
    var dryRun = false

    @OptionGroup var cookieRedaction: CookieRedactionFlags

    @OptionGroup var progressFlags: ProgressFlags

    func run() async throws {
        let settings = try store.loadConfig()
        let filter = store.cassette
        let redactor = cookieRedaction.redactor(from: settings)
        let progress = progressFlags.line()
        defer { progress.finish() }
        // Worked out read-only first: an unknown cassette, or nothing to redact, leaves the file
        // byte for byte as it was (a writable connection rewrites its header, WAL and back).
        var result = try await store.openStore(settings, access: .readOnly).use { store throws(CassetteStoreError) in
            try Self.redact(store, filter: filter, with: redactor, apply: false, progress: progress)
        }
        let path = settings.databasePath
        if let filter, !result.known.contains(filter) {
            throw CLIError(
                "\(path) has no cassette named '\(filter)' (\(result.known.isEmpty ? "it has none" : "cassettes: " + result.known.joined(separator: ", "))); nothing redacted"
            )
        }
        if !dryRun && !result.changes.isEmpty {
            result = try await store.openStore(settings, access: .readWrite).use { store throws(CassetteStoreError) in
                try Self.redact(store, filter: filter, with: redactor, apply: true, progress: progress)
            }
        }
        progress.finish()
        for change in result.changes {
            // The old key may hold the very secret being removed: only the new one is shown.
            var line = "\(change.cassette) \(change.newKey ?? change.key) #\(change.sequence): \(change.parts.joined(separator: ", "))"
            if change.newKey != nil { line += "; key changed" }
            Terminal.printLine(line)
        }
        var count = "\(result.changes.count - result.conversations.changed) of \(Formatting.count(result.total, "interaction"))"
        if result.conversations.total > 0 {
            count += " and \(result.conversations.changed) of \(Formatting.count(result.conversations.total, "WebSocket conversation"))"
        }
        if dryRun {
            Terminal.printLine("Would redact \(count) in \(path); nothing written (dry run).")
        } else if result.changes.isEmpty {
            Terminal.printLine("Redacted \(count) in \(path); nothing to change, the file is untouched.")
        } else {
            Terminal.printLine("Redacted \(count) in \(path); the file was vacuumed and its WAL truncated.")
        }
    }

    /// `conversations`: how many of the cassettes' conversations change, of how many.
    private typealias Result = (changes: [StoredRedaction], total: Int, conversations: (changed: Int, total: Int), known: [String])

    /// Redacts (or with `apply` false, finds what would be redacted in) `filter`, else every cassette.
    private static func redact(
        _ store: isolated CassetteStore, filter: String?, with redactor: Redactor, apply: Bool, progress: ProgressLine
    ) throws(CassetteStoreError) -> Result {
        let cassettes = try store.cassettes()
        let known = cassettes.map(\.name)
        guard filter == nil || known.contains(filter!) else { return ([], 0, (0, 0), known) }
        var changes: [StoredRedaction] = []
        var conversations = 0
        var conversationChanges = 0
        let chosen = cassettes.filter { filter == nil || $0.name == filter }
        // One count over every cassette redacted: each one's rows follow the ones before it.
        let total = chosen.reduce(0) { $0 + $1.interactionCount }
        var before = 0
        let overall = progress.step(apply ? "redacting" : "checking", unit: "interactions")
        for cassette in chosen {
            var handler: ProgressHandler?
            if let overall {
                let offset = before
                handler = { done, _ in overall(offset + done, total) }
            }
            changes += try store.redactStored(cassette: cassette.name, with: redactor, apply: apply, progress: handler)
            conversations += try store.conversationCounts()[cassette.name] ?? 0
            let talks = try store.redactStoredConversations(
                cassette: cassette.name, with: redactor, shapedSecrets: SecretAudit.shapedSecrets(in:), apply: apply)
            changes += talks
            conversationChanges += talks.count
            before += cassette.interactionCount
        }
        if apply {
            progress.status("erasing freed space (VACUUM)")
            try store.eraseFreedSpace()
        }
        return (changes, try store.count(cassette: filter), (conversationChanges, conversations), known)
    }
}
