import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

extension ExportCommand {
    /// `--har FILE`: the recordings, WebSocket conversations and gRPC calls of --cassette (or of
    /// every cassette) as HAR 1.2, written atomically; a conversation is the entry of its `101`
    /// with Chrome's `_webSocketMessages`, a gRPC call an HTTP/2 `POST` (`HARExporter+GRPC.swift`).
    func exportHAR(to file: String) async throws {
        let configFile = try store.loadConfig()
        let filter = store.cassette
        let opened = try await store.openStore(configFile, access: .readOnly)
        let (interactions, conversations, known, origins, schema) = try await opened.use {
            store throws(CassetteStoreError) -> ([Interaction], [Conversation], [String], [String: String], ProtoSchema) in
            let conversations = try store.conversations(cassette: nil)
            let summaries = try store.cassettes()
            let known = Set(summaries.filter { $0.interactionCount > 0 }.map(\.name) + conversations.map(\.cassette)).sorted()
            // A gRPC call is stored by its path; its entry's URL takes the cassette's first upstream.
            var origins: [String: String] = [:]
            for name in Set(conversations.filter { $0.grpc != nil }.map(\.cassette)) {
                origins[name] = try store.cassette(named: name)?.upstreams.first?.absoluteString
            }
            return (
                try store.interactions(cassette: filter), conversations.filter { filter == nil || $0.cassette == filter }, known, origins,
                try store.protoSchema()
            )
        }
        let path = configFile.databasePath
        if let filter, !known.contains(filter) {
            let list = known.isEmpty ? "it has none with recordings" : "cassettes: \(known.joined(separator: ", "))"
            throw CLIError("\(path) has no recordings in a cassette named '\(filter)' (\(list)); check the --cassette name")
        }
        guard !interactions.isEmpty || !conversations.isEmpty else {
            throw CLIError("\(path) holds no recordings; record a session first (`cassette record`) or pass --db with the right path")
        }
        let archive = HARExporter(creatorVersion: Cassette.version, grpcOrigins: origins, protoSchema: schema).archive(
            interactions, conversations: conversations)
        do {
            try archive.encoded().write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw CLIError("cannot write \(file) (\(error.localizedDescription)); check that its directory exists and is writable")
        }
        let binary = archive.log.entries.count { $0.response.content.encoding == "base64" }
        let source = filter.map { "cassette \($0)" } ?? Formatting.count(Set(interactions.map(\.cassette) + conversations.map(\.cassette)).count, "cassette")
        let calls = conversations.count { $0.grpc != nil }
        let socketCount = conversations.count - calls
        let others = [
            socketCount == 0 ? nil : Formatting.count(socketCount, "WebSocket conversation"), calls == 0 ? nil : Formatting.count(calls, "gRPC call"),
        ].compactMap { $0 }
        let sockets = others.isEmpty ? "" : " and " + others.joined(separator: " and ")
        Terminal.printLine(
            "Exported \(Formatting.count(interactions.count, "recording"))\(sockets) from \(source) of \(path) to \(file) (HAR 1.2; \(binary) base64 \(binary == 1 ? "body" : "bodies"))."
        )
    }
}
