import Foundation
import WellPlateCore
import WellPlateNetworking

/// One parsed fixture file of a fixtures directory: the fixture side of a drift check.
package struct FixtureFile: Sendable, Hashable {
    /// The fixture's name as `registry.json` and `MockDataLoader` use it: the path relative to the
    /// fixtures directory without `.json` (`mock_api_health_get`, `users/list`).
    package var name: String
    package var value: JSONValue

    package init(name: String, value: JSONValue) {
        self.name = name
        self.value = value
    }

    /// The file's path relative to the fixtures directory: `users/list.json`.
    package var fileName: String { name + ".json" }

    /// The suffix of the JSON Schema files `cassette schema --out` writes; such files describe
    /// fixtures rather than being ones, so `all(in:)` skips them.
    package static let schemaFileSuffix = ".schema.json"

    /// Every fixture under `directory`, subfolders included, sorted by name (code point order).
    ///
    /// Fixtures are the `*.json` files; skipped are `registry.json` at the top (the routes, not a
    /// response), `*.schema.json` files, the WebSocket conversations `export --fixtures` writes
    /// under `websocket/` (a conversation, not a response: `ConversationFixture`), hidden files
    /// and folders, and symbolic links to folders (which could loop).
    /// - Throws: `MockDataError` `.invalidJSON` naming the file, line and column of the first file
    ///   that does not parse, or `.unreadable` for a file or folder that cannot be read.
    package static func all(in directory: URL) throws(MockDataError) -> [FixtureFile] {
        var names: [String] = []
        try collectNames(in: directory, prefix: "", into: &names)
        names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var fixtures: [FixtureFile] = []
        for name in names {
            let url = directory.appendingPathComponent(name + ".json")
            let value = try MockDataLoader.read(fixture: name, at: url).value
            guard !ConversationFixture.describes(value) else { continue }
            fixtures.append(FixtureFile(name: name, value: value))
        }
        return fixtures
    }

    private static func collectNames(in directory: URL, prefix: String, into names: inout [String]) throws(MockDataError) {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw MockDataError(kind: .unreadable, fixture: prefix, file: directory.path, reason: error.localizedDescription)
        }
        for entry in entries where !entry.hasPrefix(".") {
            let url = directory.appendingPathComponent(entry)
            let values = try? url.resourceValues(forKeys: [.isDirectoryKey, .isSymbolicLinkKey])
            if values?.isSymbolicLink == true {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            } else if values?.isDirectory == true {
                try collectNames(in: url, prefix: prefix + entry + "/", into: &names)
                continue
            }
            guard entry.hasSuffix(".json"), !entry.hasSuffix(schemaFileSuffix) else { continue }
            if prefix.isEmpty && entry == MockResponseRegistry.fileName { continue }
            let name = prefix + entry.dropLast(".json".count)
            guard MockDataLoader.problem(withFixtureName: name) == nil else { continue }
            names.append(name)
        }
    }
}
