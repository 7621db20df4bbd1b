import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

extension ExportCommand {
    /// `--har FILE`: the recordings and WebSocket conversations of --cassette (or of every
    /// cassette) as HAR 1.2, written atomically; a conversation is the entry of its `101` with
    /// Chrome's `_webSocketMessages`.
    func exportHAR(to file: String) async throws {
        let configFile = try store.loadConfig()
        let filter = store.cassette
        let opened = try await store.openStore(configFile, access: .readOnly)
        let (interactions, conversations, known) = try await opened.use {
            store throws(CassetteStoreError) -> ([Interaction], [Conversation], [String]) in
            let conversations = try store.conversations(cassette: nil)
            let known = Set(try store.cassettes().filter { $0.interactionCount > 0 }.map(\.name) + conversations.map(\.cassette)).sorted()
            return (try store.interactions(cassette: filter), conversations.filter { filter == nil || $0.cassette == filter }, known)
        }
        let path = configFile.databasePath
        if let filter, !known.contains(filter) {
            let list = known.isEmpty ? "it has none with recordings" : "cassettes: \(known.joined(separator: ", "))"
            throw CLIError("\(path) has no recordings in a cassette named '\(filter)' (\(list)); check the --cassette name")
        }
        guard !interactions.isEmpty || !conversations.isEmpty else {
            throw CLIError("\(path) holds no recordings; record a session first (`cassette record`) or pass --db with the right path")
        }
        let archive = HARExporter(creatorVersion: Cassette.version).archive(interactions, conversations: conversations)
        do {
            try archive.encoded().write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw CLIError("cannot write \(file) (\(error.localizedDescription)); check that its directory exists and is writable")
        }
        let binary = archive.log.entries.count { $0.response.content.encoding == "base64" }
        let source = filter.map { "cassette \($0)" } ?? Formatting.count(Set(interactions.map(\.cassette) + conversations.map(\.cassette)).count, "cassette")
        let sockets = conversations.isEmpty ? "" : " and \(Formatting.count(conversations.count, "WebSocket conversation"))"
        Terminal.printLine(
            "Exported \(Formatting.count(interactions.count, "recording"))\(sockets) from \(source) of \(path) to \(file) (HAR 1.2; \(binary) base64 \(binary == 1 ? "body" : "bodies"))."
        )
    }
}
