import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette dump`: the store as stable text, for `git diff` (a textconv) and review.
struct DumpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the store as stable, line-oriented text (for git diff and review).",
        discussion: """
            One block per recording, sorted by cassette, key and sequence: the request (method, URL, \
            headers, body), the status, the response headers and the body. JSON bodies are \
            pretty-printed with sorted keys, other text as it is, binary bodies as their size and \
            SHA-256. Then one block per WebSocket conversation: the handshake, one line per message \
            (-> client to server, <- server to client; kind, size, a preview of up to 200 characters; \
            fragment sizes when it came in several frames) and how it ended. What changes on every \
            re-recording without the API changing (recording time, duration, the Date header, row \
            ids, message offsets, Sec-WebSocket-Key) is left out; --timestamps adds it.

            Make `git diff` and pull requests show recordings as text instead of "Binary files \
            differ":
              echo 'cassettes.db diff=cassette' >> .gitattributes
              git config diff.cassette.textconv "cassette dump --db"

            Examples:
              cassette dump
              cassette dump --cassette staging --timestamps
            """
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Include recording times, durations and Date headers.")
    var timestamps = false

    func run() async throws {
        let configFile = try store.loadConfig()
        let filter = store.cassette
        let opened = try await store.openStore(configFile, access: .readOnly)
        let (infos, interactions, conversations, schema) = try await opened.use { store throws(CassetteStoreError) in
            (
                try store.cassetteInfos().filter { filter == nil || $0.name == filter }, try store.interactions(cassette: filter),
                try store.conversations(cassette: filter), try store.protoSchema()
            )
        }
        let text = CassetteDump(includesTimestamps: timestamps, protoSchema: schema).text(
            cassettes: infos, interactions: interactions, conversations: conversations)
        Terminal.write(Data(text.utf8))
    }
}
