import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import WellPlateCore
import WellPlateNetworking

/// Finds the stored key a user means on the command line: the text exactly as stored, else the
/// text normalized like a key (`get /api/users?b=1&a=2` is `GET /api/users?a=2&b=1`); when neither
/// is stored, the error lists the nearest stored keys and how they differ.
enum KeyLookup {
    enum Resolution: Sendable {
        /// The stored key to use.
        case found(String)
        /// The text is not stored and is not a key either.
        case unparsable(RequestKeyError)
        /// A well-formed key with no recording.
        case missing(RequestKey)
        /// A GraphQL operation's name (`GetUser`) or label (`query GetUser`): every stored key of
        /// that operation, one per variables variant, sorted.
        case operation([String])
    }

    /// How many near misses an error lists.
    static let suggestionLimit = 5

    /// A key given as separate words (`cassette show GET /api/users`) is one key with single spaces.
    static func text(from words: [String]) -> String {
        words.joined(separator: " ")
    }

    static func resolve(_ text: String, among storedKeys: Set<String>) -> Resolution {
        if storedKeys.contains(text) { return .found(text) }
        // A gRPC method by its path, `/shop.v1.Catalog/GetItem`: its calls are keyed as POSTs.
        if text.hasPrefix("/"), storedKeys.contains("POST " + text) { return .found("POST " + text) }
        let operationKeys = storedKeys.filter { key in
            guard let operation = GraphQLKeyPart(inKey: key) else { return false }
            return operation.name == text || operation.label == text
        }
        if !operationKeys.isEmpty { return .operation(operationKeys.sorted()) }
        let key: RequestKey
        do {
            key = try RequestKey(parsing: text)
        } catch {
            return .unparsable(error)
        }
        return storedKeys.contains(key.rawValue) ? .found(key.rawValue) : .missing(key)
    }

    /// The one-line error for a key that resolved to nothing. `scope` names where it was looked
    /// for (`cassettes.db` or `cassette dev in cassettes.db`).
    static func notFoundError(_ text: String, _ resolution: Resolution, storedKeys: Set<String>, scope: String) -> CLIError {
        guard !storedKeys.isEmpty else {
            return CLIError("\(scope) has no recordings, so nothing matches \"\(text)\"; `cassette list` shows what is stored")
        }
        switch resolution {
        case .found(let key):
            return CLIError("\"\(key)\" has no recording in \(scope)")
        case .operation(let keys):
            return CLIError(
                "\"\(text)\" names the GraphQL operation of \(keys.count) stored keys; give one of them: \(keys.prefix(suggestionLimit).map { "\"\($0)\"" }.joined(separator: ", "))"
            )
        case .unparsable(let error):
            let containing = storedKeys.filter { $0.localizedCaseInsensitiveContains(text) }.sorted().prefix(suggestionLimit)
            let hint = containing.isEmpty ? "" : "; stored keys containing it: " + containing.map { "\"\($0)\"" }.joined(separator: ", ")
            return CLIError.usage(error.description + hint)
        case .missing(let key):
            let normalized = key.rawValue == text ? "" : " (normalized: \"\(key.rawValue)\")"
            let candidates = storedKeys.compactMap(RequestKey.init(rawValue:))
            let nearest = RequestKey.nearest(to: key, among: candidates, limit: suggestionLimit).map { difference in
                "\"\(difference.recorded.rawValue)\" (\(difference.items.map(\.description).joined(separator: ", ")))"
            }
            return CLIError("no recording of \"\(text)\"\(normalized) in \(scope); nearest stored keys: \(nearest.joined(separator: "; "))")
        }
    }

    /// `cassettes.db`, or `cassette dev in cassettes.db`.
    static func scope(path: String, cassette: String?) -> String {
        cassette.map { "cassette \($0) in \(path)" } ?? path
    }
}
