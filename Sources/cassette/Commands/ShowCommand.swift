import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette show KEY`: everything recorded for one request key, or one row by id.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show everything recorded for a request key.",
        discussion: """
            Prints every recording of KEY (all sequence positions, in every cassette unless --cassette \
            names one): method, URL, cassette, sequence, when it was recorded, how long it took, \
            request headers and body, status, response headers and body. JSON bodies are \
            pretty-printed with sorted keys, text is shown as it is, and anything else as its size and \
            a hex dump of its first 64 bytes.

            KEY is the key `cassette list` prints, in quotes or as separate words, or a GraphQL \
            operation's name (GetUser, or 'query GetUser'), which shows every recording of it. A key that is not \
            stored exactly is normalized the way keys are (method upper-cased, query sorted, escapes \
            normalized) and looked up again; if that finds nothing either, the error lists the nearest \
            stored keys and what differs. --id ID (or '#ID', quoted because the shell treats # as a \
            comment) shows the one recording with that id from the ID column of `cassette list`.

            --json prints an array of objects with the keys cassette, contentEncoding, durationMs, \
            id, key, method, recordedAt, requestBody, requestHeaders, responseBody, responseHeaders, \
            sequence, status and url. Headers are [{"name", "value"}] in recorded order; a body is \
            {"json": value}, {"text": "..."} or {"base64": "..."} (requestBody is null without one).

            Examples:
              cassette show 'GET /api/users?limit=10'
              cassette show get '/api/users?offset=0&limit=10'  # normalized
              cassette show 'POST /api/meals body:sha256:9f86d081884c7d65' \\
                --cassette staging
              cassette show --id 42 --json
            """
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: ArgumentHelp("The request key, e.g. 'GET /api/users?limit=10', or '#ID'.", valueName: "key"))
    var key: [String] = []

    @Option(help: ArgumentHelp("Show the recording with this id (the ID column of `cassette list`).", valueName: "id"))
    var id: Int64?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        switch (key.isEmpty, id) {
        case (true, nil): throw ValidationError("name the recording to show: a KEY such as 'GET /api/users', or --id ID")
        case (false, .some): throw ValidationError("give either a KEY or --id, not both")
        default: break
        }
        if let id, id <= 0 { throw ValidationError("--id must be a positive row id, got \(id)") }
    }

    enum Target: Sendable {
        case key(String)
        case id(Int64)
    }

    /// What the store said, sent back from its queue.
    enum Outcome: Sendable {
        case found([Interaction], recordingsPerKey: [String: Int], conversations: [Conversation] = [], schema: ProtoSchema = ProtoSchema())
        case noSuchID(Int64)
        case notFound(String, KeyLookup.Resolution, storedKeys: Set<String>)
    }

    func run() async throws {
        let configFile = try store.loadConfig()
        let target = try target()
        let opened = try await store.openStore(configFile, access: .readOnly)
        let filter = store.cassette
        let outcome = try await opened.use { store throws(CassetteStoreError) -> Outcome in
            let summaries = try store.summaries(cassette: filter)
            var perKey: [String: Int] = [:]
            for summary in summaries { perKey["\(summary.cassette) \(summary.key)", default: 0] += 1 }
            switch target {
            case .id(let id):
                guard let row = summaries.first(where: { $0.id == id }) else { return .noSuchID(id) }
                let found = try store.interactions(key: row.key, cassette: row.cassette).filter { $0.id == id }
                return .found(found, recordingsPerKey: perKey)
            case .key(let text):
                // A WebSocket handshake keys like the GET of its URL: its conversations are shown with it.
                let conversations = try store.conversations(cassette: filter)
                let keys = Set(summaries.map(\.key)).union(conversations.map(\.key))
                let resolution = KeyLookup.resolve(text, among: keys)
                if case .operation(let operationKeys) = resolution {
                    var found: [Interaction] = []
                    for key in operationKeys { found += try store.interactions(key: key, cassette: filter) }
                    return .found(found, recordingsPerKey: perKey)
                }
                guard case .found(let key) = resolution else { return .notFound(text, resolution, storedKeys: keys) }
                let matched = conversations.filter { $0.key == key }
                return .found(
                    try store.interactions(key: key, cassette: filter), recordingsPerKey: perKey, conversations: matched,
                    schema: matched.contains { $0.grpc != nil } ? try store.protoSchema() : ProtoSchema())
            }
        }
        let scope = KeyLookup.scope(path: configFile.databasePath, cassette: filter)
        switch outcome {
        case .noSuchID(let id):
            throw CLIError("no recording has id \(id) in \(scope); the ID column of `cassette list` shows the ids")
        case let .notFound(text, resolution, keys):
            throw KeyLookup.notFoundError(text, resolution, storedKeys: keys, scope: scope)
        case let .found(interactions, perKey, conversations, schema):
            let reports = interactions.map {
                InteractionReport(interaction: $0, recordingsOfKey: perKey["\($0.cassette) \($0.key)"] ?? 1)
            }
            if json {
                Terminal.printLine(JSONValue.array(reports.map(\.jsonValue)).prettyJSON)
                return
            }
            let blocks =
                reports.map { $0.lines.joined(separator: "\n") }
                + conversations.map { conversation in
                    (conversation.grpc != nil ? GRPCCallText(schema: schema).lines(conversation) : ConversationReport.lines(conversation)).joined(
                        separator: "\n")
                }
            Terminal.printLine(blocks.joined(separator: "\n\n"))
        }
    }

    private func target() throws(CLIError) -> Target {
        if let id { return .id(id) }
        let text = KeyLookup.text(from: key)
        if text.hasPrefix("#") {
            guard let id = Int64(text.dropFirst()), id > 0 else {
                throw CLIError.usage("'\(text)' is not a row id; write '#' and a positive number such as '#42', or use --id 42")
            }
            return .id(id)
        }
        return .key(text)
    }
}
