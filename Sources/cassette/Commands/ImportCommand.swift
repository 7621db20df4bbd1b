import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette import`: recordings from a HAR file written by DevTools, mitmproxy, Charles or Proxyman.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import the entries of a HAR file as recordings.",
        discussion: """
            Reads a HAR 1.2 file and stores each entry as a recording of --cassette (default dev), \
            exactly as the proxy would have recorded it: redaction applied before anything is \
            written (the built-in rules plus the configuration's "redact"), keys computed with the \
            cassette's matching rules, response bodies decoded (HAR holds them decoded; \
            Content-Encoding is remembered, Transfer-Encoding and Connection dropped, Content-Length \
            set to the body's length), headers kept in order. Identical requests become a sequence \
            in file order. Bodies may be text or base64 ("encoding": "base64").

            Entries that cannot be replayed are skipped with the reason (failed requests with status \
            0, methods other than GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS, URLs that are not \
            http(s), invalid base64). Entries whose response body the HAR left out (browsers omit \
            some) are imported with an empty body and a warning naming them.

            WebSocket entries (Chrome's _webSocketMessages, on the entry of the 101) become \
            conversations: text (opcode 1) and binary (opcode 2, base64) messages with their \
            direction (send: the client's) and offsets, redacted as recorded ones are; the end \
            from the comment cassette export writes, else marked cut. They are stored in a second \
            transaction after the recordings.

            --mode missing (the default) imports only requests whose key the cassette has no \
            recording of yet; --mode all replaces the recordings of every key the file holds. The \
            import is one transaction: all of it is stored, or nothing.

            Examples:
              cassette import session.har
              cassette import traffic.har --cassette staging --mode all
            """
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: ArgumentHelp("The HAR file to import.", valueName: "file.har"))
    var file: String

    @Option(help: ArgumentHelp("missing: only keys without recordings; all: replace the recordings of imported keys.", valueName: "mode"))
    var mode: ImportModeOption = .missing

    @OptionGroup var progressFlags: ProgressFlags

    func run() async throws {
        let configFile = try store.loadConfig()
        let progress = progressFlags.line()
        defer { progress.finish() }
        progress.status("reading the HAR file")
        let archive = try Self.readArchive(file)
        let cassette = store.cassetteName(environment: nil)
        let explicitRules = configFile.explicitMatchingRules
        let redactor = configFile.redactor
        let mode = mode.mode
        // Looked at read-only first: an import with nothing to store leaves the file byte for byte
        // as it was (or absent), where a writable connection would rewrite its header.
        let (saved, recordedKeys, conversationKeys, schema) = try await savedState(of: cassette, in: configFile)
        let rules = explicitRules ?? saved?.matchingRules ?? .default
        let result = HARImporter(cassette: cassette, rules: rules, redactor: redactor, schema: schema).convert(
            archive, progress: progress.step("converting", unit: "entries"))
        var existing = recordedKeys.intersection(result.interactions.map(\.key))
        // A key whose conversations were already there keeps them (without --mode all): the
        // conversations of the other keys are the ones stored.
        let storedConversationKeys = Set(result.conversations.map(\.key)).filter { mode == .all || !conversationKeys.contains($0) }
        let hasWork =
            !storedConversationKeys.isEmpty || (mode == .all ? !result.interactions.isEmpty : result.interactions.contains { !existing.contains($0.key) })
        var conversationsStored = 0
        if hasWork {
            let stored = progress.step("storing", unit: "entries")
            let opened = try await store.openStore(configFile, access: .readWrite, creatingIfMissing: true)
            (existing, conversationsStored) = try await opened.use { store throws(CassetteStoreError) -> (Set<String>, Int) in
                let saved = try store.cassette(named: cassette)
                if saved == nil || explicitRules != nil {
                    var info = saved ?? CassetteInfo(name: cassette)
                    info.matchingRules = rules
                    let first = result.interactions.first?.url ?? result.grpcOrigin ?? result.conversations.first?.url
                    info.upstream = info.upstream ?? first.flatMap { Self.origin(of: $0) }
                    try store.saveCassette(info)
                }
                var keys: Set<String> = []
                if !result.interactions.isEmpty { keys = try store.importInteractions(result.interactions, mode: mode, progress: stored) }
                return (keys, try store.importConversations(result.conversations, replacing: mode == .all))
            }
        }
        progress.finish()
        let lines = report(
            result, existing: existing, conversations: (conversationsStored, storedConversationKeys), cassette: cassette, path: configFile.databasePath)
        Terminal.printLine(lines.joined(separator: "\n"))
        if result.interactions.isEmpty && result.conversations.isEmpty {
            throw CLIError("\(file) has no entry that can be imported (\(Formatting.count(result.skipped.count, "entry", "entries")) skipped)")
        }
    }

    /// The cassette's saved settings, recorded keys, the keys of its conversations and the
    /// store's protobuf descriptors; none for a store not created yet.
    private func savedState(
        of cassette: String, in configFile: CassetteConfigFile
    ) async throws(CLIError) -> (CassetteInfo?, Set<String>, Set<String>, ProtoSchema) {
        let path = configFile.databasePath
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size > 0 else { return (nil, [], [], ProtoSchema()) }
        return try await store.openStore(configFile, access: .readOnly).use { store throws(CassetteStoreError) in
            (
                try store.cassette(named: cassette), Set(try store.summaries(cassette: cassette).map(\.key)),
                try store.conversationKeys(cassette: cassette), try store.protoSchema()
            )
        }
    }

    static func readArchive(_ file: String) throws(CLIError) -> HARArchive {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw CLIError.usage("cannot read \(file) (\(error.localizedDescription)); check the path")
        }
        do {
            return try HARArchive.decode(data)
        } catch {
            throw CLIError.usage("\(file) is not a HAR file: \(Self.describe(error)); export it again as HAR (HTTP Archive) from your tool")
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case .keyNotFound(let key, let context):
            return "\(Self.path(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(Self.path(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(Self.path(context.codingPath)) is malformed"
        @unknown default:
            return "\(decoding)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }

    private static func origin(of url: String) -> String? {
        guard var components = URLComponents(string: url) else { return nil }
        components.path = ""
        components.query = nil
        components.fragment = nil
        return components.string
    }

    /// The warnings and skipped entries, then one summary line: `Imported 5 entries (5 keys)
    /// from ...`, naming WebSocket conversations when the file had any (`Imported 5 entries and
    /// 1 WebSocket conversation (6 keys)`, and for a HAR of conversations alone `Imported 1
    /// WebSocket conversation (1 key) from ...`, not "0 entries" first).
    private func report(
        _ result: HARImporter.Result, existing: Set<String>, conversations: (stored: Int, keys: Set<String>), cassette: String, path: String
    ) -> [String] {
        var lines: [String] = []
        let kept = mode == .all ? result.interactions : result.interactions.filter { !existing.contains($0.key) }
        let alreadyRecorded = result.interactions.count - kept.count
        for warning in result.warnings {
            lines.append("warning: \(warning)")
        }
        for skipped in result.skipped {
            lines.append("skipped \(skipped)")
        }
        if alreadyRecorded > 0 {
            lines.append(
                "skipped \(Formatting.count(alreadyRecorded, "entry", "entries")) of \(Formatting.count(existing.count, "key")) the cassette already has (--mode all replaces them)"
            )
        }
        let conversationsLeft = result.conversations.count - conversations.stored
        let calls = result.conversations.count { $0.grpc != nil }
        let noun = calls == 0 ? "WebSocket conversation" : calls == result.conversations.count ? "gRPC call" : "WebSocket conversation or gRPC call"
        if conversationsLeft > 0 {
            lines.append(
                "skipped \(Formatting.count(conversationsLeft, noun)) of keys the cassette already has conversations of (--mode all replaces them)"
            )
        }
        let keys = Set(kept.map(\.key)).union(conversations.keys).count
        // What the file holds is named: its HTTP entries (also none, for a file with nothing to
        // import), its WebSocket conversations, or both.
        var parts: [String] = []
        if !result.interactions.isEmpty || result.conversations.isEmpty { parts.append(Formatting.count(kept.count, "entry", "entries")) }
        if !result.conversations.isEmpty { parts.append(Formatting.count(conversations.stored, noun)) }
        let imported = parts.joined(separator: " and ")
        var summary = "Imported \(imported) (\(Formatting.count(keys, "key"))) from \(file) into cassette \(cassette) of \(path)"
        if mode == .all && !existing.isEmpty { summary += ", replacing the recordings of \(Formatting.count(existing.count, "key"))" }
        let skippedCount = result.skipped.count + alreadyRecorded + conversationsLeft
        summary += skippedCount > 0 ? "; \(skippedCount) skipped." : "."
        lines.append(summary)
        return lines
    }
}

enum ImportModeOption: String, ExpressibleByArgument, CaseIterable {
    case missing, all

    var mode: ImportMode {
        switch self {
        case .missing: .missing
        case .all: .all
        }
    }
}
