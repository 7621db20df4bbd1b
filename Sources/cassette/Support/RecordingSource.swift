import Foundation
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

    /// A loaded cassette.
    struct Loaded: Sendable {
        var path: String
        var cassette: String
        var interactions: [Interaction]
    }

    func load() async throws(CLIError) -> Loaded {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIError.usage("\(path) does not exist; record a session first (`cassette record`) or pass \(storeFlag) with the right path")
        }
        let store: CassetteStore
        do {
            store = try await CassetteStore.open(path: path, access: .readOnly)
        } catch {
            throw CLIError.usage(error.message)
        }
        let requested = cassette
        let path = path
        let flag = cassetteFlag
        let outcome: Result<Loaded, CLIError>
        do {
            outcome = try await store.use { store throws(CassetteStoreError) -> Result<Loaded, CLIError> in
                let names = try store.cassettes().filter { $0.interactionCount > 0 }.map(\.name)
                switch Self.choose(requested, among: names, path: path, flag: flag) {
                case .failure(let error):
                    return .failure(error)
                case .success(let name):
                    return .success(Loaded(path: path, cassette: name, interactions: try store.interactions(cassette: name)))
                }
            }
        } catch {
            throw CLIError.usage(error.message)
        }
        return try outcome.get()
    }

    /// The cassette to read among the store's cassettes that hold recordings.
    static func choose(_ requested: String?, among names: [String], path: String, flag: String) -> Result<String, CLIError> {
        if let requested {
            if names.contains(requested) { return .success(requested) }
            let known = names.isEmpty ? "it has no recordings" : "cassettes with recordings: \(names.joined(separator: ", "))"
            return .failure(.usage("\(path) has no recordings in a cassette named '\(requested)' (\(known)); check the \(flag) name"))
        }
        if names.count == 1 { return .success(names[0]) }
        if names.contains(CassetteConfigFile.defaultCassetteName) { return .success(CassetteConfigFile.defaultCassetteName) }
        if names.isEmpty {
            return .failure(.usage("\(path) has no recordings; record a session first (`cassette record`) or pass --db with the right path"))
        }
        return .failure(.usage("\(path) holds several cassettes (\(names.joined(separator: ", "))) and none is named dev; pick one with \(flag) NAME"))
    }
}
