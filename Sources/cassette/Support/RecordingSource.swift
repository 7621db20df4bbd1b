import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// One cassette of one store, read whole for schema work (`cassette diff`, `cassette schema`).
///
/// Without a cassette name, the store's only cassette is used, else `dev`; a store that holds
/// several and no `dev` needs `--cassette`. Every failure is an input error (status 2): for
/// `cassette diff`, status 1 means drift was found and must not be mistaken for a missing file.
struct RecordingSource: Sendable {
    /// The store file.
    var path: String
    /// The cassette asked for, if any.
    var cassette: String?
    /// The flags that name the store and the cassette, for messages (`--db`, `--against`;
    /// `--cassette`, `--against-cassette`).
    var storeFlag = "--db"
    var cassetteFlag = "--cassette"
    /// Whether the GraphQL operations inside WebSocket conversations count as recordings of
    /// those operations (`ConversationSamples`): `schema` and `diff` read a subscription's
    /// payloads as that operation's JSON.
    var includesConversationOperations = false
    /// Whether gRPC calls join the interactions as endpoints (`GRPCEndpoints`): `schema` and `diff`.
    var includesGRPC = false

    /// A loaded cassette.
    struct Loaded: Sendable {
        var path: String
        var cassette: String
        var interactions: [Interaction]
    }

    /// The cassette's interactions; `progress` hears of each one read.
    func load(progress: ProgressHandler? = nil) async throws(CLIError) -> Loaded {
        let store: CassetteStore
        do {
            store = try await CassetteStore.open(path: path, access: .readOnly)
        } catch {
            throw CLIError(error, storeFlag: storeFlag, exitStatus: 2)
        }
        let requested = cassette
        let path = path
        let flag = cassetteFlag
        let storeFlag = storeFlag
        let withConversations = includesConversationOperations
        let includesGRPC = includesGRPC
        let outcome: Result<Loaded, CLIError>
        do {
            outcome = try await store.use { store throws(CassetteStoreError) -> Result<Loaded, CLIError> in
                var names = try store.cassettes().filter { $0.interactionCount > 0 }.map(\.name)
                let conversations = withConversations ? try store.conversations(cassette: requested).filter { $0.grpc == nil } : []
                for name in conversations.map(\.cassette) where !names.contains(name) { names.append(name) }
                let calls = includesGRPC ? try store.conversations(cassette: nil).filter { $0.grpc != nil } : []
                for name in calls.map(\.cassette) where !names.contains(name) { names.append(name) }
                switch Self.choose(requested, among: names, path: path, storeFlag: storeFlag, flag: flag) {
                case .failure(let error):
                    return .failure(error)
                case .success(let name):
                    var interactions = try store.interactions(cassette: name, progress: progress)
                    interactions += ConversationSamples.interactions(conversations.filter { $0.cassette == name })
                    if includesGRPC {
                        interactions += GRPCEndpoints.interactions(of: calls.filter { $0.cassette == name }, schema: try store.protoSchema())
                    }
                    return .success(Loaded(path: path, cassette: name, interactions: interactions))
                }
            }
        } catch {
            throw CLIError.usage(error.message)
        }
        return try outcome.get()
    }

    /// The cassette to read among the store's cassettes that hold recordings.
    static func choose(_ requested: String?, among names: [String], path: String, storeFlag: String, flag: String) -> Result<String, CLIError> {
        if let requested {
            if names.contains(requested) { return .success(requested) }
            return .failure(CLIError(.missingCassette(requested, path: path, available: names), storeFlag: storeFlag, cassetteFlag: flag, exitStatus: 2))
        }
        if names.count == 1 { return .success(names[0]) }
        if names.contains(CassetteConfigFile.defaultCassetteName) { return .success(CassetteConfigFile.defaultCassetteName) }
        if names.isEmpty {
            return .failure(CLIError(.missingCassette(nil, path: path, available: []), storeFlag: storeFlag, exitStatus: 2))
        }
        return .failure(.usage("\(path) holds several cassettes (\(names.joined(separator: ", "))) and none is named dev; pick one with \(flag) NAME"))
    }
}
