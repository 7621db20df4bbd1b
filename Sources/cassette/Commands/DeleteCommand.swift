import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette delete`: removes the recordings of one key, or a whole cassette.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the recordings of a request key, or a whole cassette.",
        discussion: """
            With KEY, deletes every recording of that key (all sequence positions) in --cassette, or in \
            every cassette without it, WebSocket conversations of that key (`GET` and the handshake's \
            URL) with their messages included; KEY is looked up like `cassette show` does (exactly, then \
            normalized). With --all, deletes the whole cassette named by --cassette; --all never works \
            without --cassette, so a typo cannot empty the store. Prints how many recordings went. \
            Deleting nothing is an error (status 1) that names what was looked for.

            Examples:
              cassette delete 'GET /api/users?limit=10'
              cassette delete GET /api/users/7 --cassette staging
              cassette delete --cassette staging --all
            """
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: ArgumentHelp("The request key whose recordings to delete, e.g. 'GET /api/users'.", valueName: "key"))
    var key: [String] = []

    @Flag(help: "Delete the whole cassette named by --cassette.")
    var all = false

    func validate() throws {
        if all {
            guard store.cassette != nil else {
                throw ValidationError("--all deletes a whole cassette and needs --cassette NAME (it never deletes every cassette at once)")
            }
            guard key.isEmpty else {
                throw ValidationError("give either a KEY or --all, not both")
            }
        } else if key.isEmpty {
            throw ValidationError("name what to delete: a KEY such as 'GET /api/users', or --cassette NAME --all")
        }
    }

    /// What the read-only look found; only `.cassette` and `.key` open the store for writing.
    enum Target: Sendable {
        case cassette(String)
        case key(String)
        case noSuchCassette(known: [String])
        case notFound(String, KeyLookup.Resolution, storedKeys: Set<String>)
    }

    func run() async throws {
        let configFile = try store.loadConfig()
        let filter = store.cassette
        let all = all
        let text = KeyLookup.text(from: key)
        // Looked up read-only first: a writable connection rewrites the file's header (WAL and
        // back) even when nothing is deleted, and a failed delete must leave the file as it was.
        let target = try await store.openStore(configFile, access: .readOnly).use { store throws(CassetteStoreError) -> Target in
            if all, let filter {
                let cassettes = try store.cassettes()
                return cassettes.contains(where: { $0.name == filter }) ? .cassette(filter) : .noSuchCassette(known: cassettes.map(\.name))
            }
            // A key recorded only as a WebSocket conversation is a key too.
            let keys = Set(try store.summaries(cassette: filter).map(\.key)).union(try store.conversationKeys(cassette: filter))
            let resolution = KeyLookup.resolve(text, among: keys)
            guard case .found(let key) = resolution else { return .notFound(text, resolution, storedKeys: keys) }
            return .key(key)
        }
        let path = configFile.databasePath
        switch target {
        case .cassette(let name):
            let count = try await store.openStore(configFile, access: .readWrite).use { store throws(CassetteStoreError) in
                try store.delete(cassette: name)
            }
            Terminal.printLine("Deleted cassette \(name) (\(ConversationReport.count(count))) from \(path).")
        case .key(let key):
            let count = try await store.openStore(configFile, access: .readWrite).use { store throws(CassetteStoreError) in
                try store.delete(key: key, cassette: filter)
            }
            Terminal.printLine("Deleted \(ConversationReport.count(count)) of \(key) from \(KeyLookup.scope(path: path, cassette: filter)).")
        case .noSuchCassette(let known):
            throw CLIError(CassetteStoreError.missingCassette(filter, path: path, available: known).message + "; nothing deleted")
        case let .notFound(text, resolution, keys):
            let error = KeyLookup.notFoundError(text, resolution, storedKeys: keys, scope: KeyLookup.scope(path: path, cassette: filter))
            throw CLIError(error.message + "; nothing deleted", exitStatus: error.exitStatus)
        }
    }
}
