import CassetteTools
import Foundation
import WellPlateCore

extension ExportCommand {
    /// `--fixtures DIR` for WebSocket conversations: one `ConversationFixture` file each under
    /// `DIR/websocket/`, with the same rules as the HTTP fixtures for files that exist (left when
    /// equal, overwritten only with --force, nothing written with --dry-run). Returns how many
    /// files were not overwritten.
    func exportConversations(_ conversations: [Conversation], cassette: String, to directory: URL, shown: String) throws -> Int {
        var lines: [String] = []
        var counts: [FixtureExport.Action: Int] = [:]
        var files: [(name: String, contents: Data, detail: String)] = []
        for (conversation, name) in zip(conversations, ConversationFixture.fileNames(conversations)) {
            let contents: Data
            do {
                contents = try ConversationFixture(conversation).encoded()
            } catch {
                throw CLIError("cannot encode the WebSocket conversation \(conversation.key) as JSON (\(error)); report this as a bug")
            }
            files.append(
                (name, contents, "WebSocket \(conversation.key), \(Formatting.count(conversation.messages.count, "message")), \(conversation.end.summary)"))
        }
        // Each GraphQL operation the conversations carried, with the payloads it received.
        let operations = OperationFixture.fixtures(conversations)
        for fixture in operations {
            let variables = fixture.variables.map { " " + $0.compactJSON } ?? ""
            files.append(
                (
                    fixture.fileName, fixture.encoded(),
                    "\(fixture.operation)\(variables) in WebSocket \(fixture.key), \(Formatting.count(fixture.payloads.count, "payload"))"
                ))
        }
        for (name, contents, detail) in files {
            let (action, line) = try writeFixtureFile(name, contents: contents, detail: detail, in: directory)
            counts[action, default: 0] += 1
            lines.append(line)
        }
        let parts = [
            (counts[.create, default: 0], dryRun ? "to create" : "created"),
            (counts[.overwrite, default: 0], dryRun ? "to overwrite" : "overwritten"),
            (counts[.unchanged, default: 0], "unchanged"),
            (counts[.refuse, default: 0], "not overwritten (use --force)"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        let lead = dryRun ? "Dry run, nothing written. Would export" : "Exported"
        lines.append(
            "\(lead) \(Formatting.count(conversations.count, "WebSocket conversation"))\(operations.isEmpty ? "" : " and \(Formatting.count(operations.count, "operation fixture"))") from cassette \(cassette) to \(shown): \(parts.joined(separator: ", "))."
        )
        Terminal.printLine(lines.joined(separator: "\n"))
        return counts[.refuse, default: 0]
    }

    /// `--fixtures DIR` for gRPC: one `GRPCMethodFixture` file per method under `DIR/grpc/`,
    /// with the same rules for files that exist. Returns how many files were not overwritten.
    func exportGRPC(_ methods: [GRPCMethodFixture], cassette: String, to directory: URL, shown: String) throws -> Int {
        var lines: [String] = []
        var refused = 0
        for method in methods {
            let detail = "gRPC \(method.path), \(Formatting.count(method.variants.count, "variant")) of \(Formatting.count(method.calls.count, "call"))"
            let (action, line) = try writeFixtureFile(method.fileName, contents: method.encoded(), detail: detail, in: directory)
            if action == .refuse { refused += 1 }
            lines.append(line)
        }
        let lead = dryRun ? "Dry run, nothing written. Would export" : "Exported"
        lines.append("\(lead) \(Formatting.count(methods.count, "gRPC method")) from cassette \(cassette) to \(shown).")
        Terminal.printLine(lines.joined(separator: "\n"))
        return refused
    }

    /// Writes one fixture file under `directory` with the rules of every fixture export: left when
    /// its JSON is equal, overwritten only with --force, nothing written with --dry-run. Returns
    /// what was done and the line that says so.
    private func writeFixtureFile(_ name: String, contents: Data, detail: String, in directory: URL) throws -> (FixtureExport.Action, String) {
        let url = directory.appendingPathComponent(name)
        let current = FileManager.default.contents(atPath: url.path)
        let action: FixtureExport.Action =
            switch current {
            case nil: .create
            case let current? where current == contents || (try? JSONValue(parsing: current)) == (try? JSONValue(parsing: contents)): .unchanged
            case _?: force ? .overwrite : .refuse
            }
        if !dryRun && (action == .create || action == .overwrite) {
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try contents.write(to: url, options: .atomic)
            } catch {
                throw CLIError("cannot write \(url.path) (\(error.localizedDescription)); check that \(directory.path) is writable")
            }
        }
        let verb: String =
            switch action {
            case .create: dryRun ? "would create" : "created"
            case .unchanged: "unchanged"
            case .overwrite: dryRun ? "would overwrite" : "overwrote"
            case .refuse: "would overwrite"
            }
        return (action, "\(verb)  \(name)  (\(detail)\(action == .refuse ? "; differs; use --force" : ""))")
    }
}
