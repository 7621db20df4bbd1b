import Foundation
import WellPlateCore

/// Reads fixtures: `NAME.json` from a fixtures directory, then from a bundle's resources.
///
/// Every file is checked with the library's JSON parser before it is returned, so a syntax error
/// is reported with its line and column whichever way the fixture is used. Decoding uses
/// `JSONCoding` (ISO-8601 dates), exactly as the live client decodes responses.
public struct MockDataLoader: Sendable {
    /// Searched first.
    public var directory: URL?
    /// Searched when the directory has no such file.
    public var bundle: Bundle?
    /// A folder inside the bundle's resources, such as `MockData`.
    public var bundleSubdirectory: String?
    /// Listed in `notFound` errors, so the user sees what is mapped.
    public var registry: MockResponseRegistry?

    /// A loader searching `directory`, then `bundleSubdirectory` of `bundle`; with neither, every fixture is not found.
    public init(directory: URL? = nil, bundle: Bundle? = nil, bundleSubdirectory: String? = nil, registry: MockResponseRegistry? = nil) {
        self.directory = directory
        self.bundle = bundle
        self.bundleSubdirectory = bundleSubdirectory
        self.registry = registry
    }

    /// The file that holds fixture `name`, if there is one.
    public func url(for name: String) -> URL? {
        guard Self.problem(withFixtureName: name) == nil else { return nil }
        if let candidate = directory.map({ Self.file(for: name, in: $0) }), FileManager.default.fileExists(atPath: candidate.path) {
            return candidate
        }
        return bundle?.url(forResource: name, withExtension: "json", subdirectory: bundleSubdirectory)
    }

    /// The fixture's bytes, checked to be valid JSON.
    public func data(for name: String) throws(MockDataError) -> Data {
        if let problem = Self.problem(withFixtureName: name) {
            throw MockDataError(kind: .invalidName, fixture: name, reason: problem)
        }
        guard let url = url(for: name) else {
            throw MockDataError(kind: .notFound, fixture: name, searched: searchedPlaces(for: name), registeredRoutes: registry?.registrations ?? [])
        }
        return try Self.read(fixture: name, at: url).data
    }

    /// A fixture file's bytes and their parse: an unreadable file or bad JSON becomes an error
    /// that names the fixture, the file and (for JSON) the line and column.
    package static func read(fixture name: String, at url: URL) throws(MockDataError) -> (data: Data, value: JSONValue) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw MockDataError(kind: .unreadable, fixture: name, file: url.path, reason: error.localizedDescription)
        }
        do {
            return (data, try JSONValue(parsing: data))
        } catch {
            throw MockDataError(kind: .invalidJSON, fixture: name, file: url.path, line: error.line, column: error.column, reason: error.reason)
        }
    }

    /// The fixture decoded as `T`.
    public func load<T: Decodable>(_ name: String, as type: T.Type = T.self) throws(MockDataError) -> T {
        let data = try data(for: name)
        do {
            return try JSONCoding.decode(type, from: data)
        } catch {
            throw Self.mismatch(error, fixture: name, file: url(for: name)?.path)
        }
    }

    /// The design documents' shape: fixture `name` from `bundle`'s resources.
    public static func load<T: Decodable>(_ name: String, bundle: Bundle = .main) throws(MockDataError) -> T {
        try MockDataLoader(bundle: bundle).load(name, as: T.self)
    }

    /// The design documents' shape: the raw bytes of fixture `name` from `bundle`'s resources.
    public static func loadRawData(_ name: String, bundle: Bundle = .main) throws(MockDataError) -> Data {
        try MockDataLoader(bundle: bundle).data(for: name)
    }

    // MARK: Helpers

    /// Turns a decoding failure of fixture `name` into a `typeMismatch` naming the file and JSON path.
    static func mismatch(_ error: Error, fixture name: String, file: String?) -> MockDataError {
        if case APIError.decodingError(let underlying) = error, let decoding = underlying as? ResponseDecodingError {
            return MockDataError(kind: .typeMismatch, fixture: name, file: file, jsonPath: decoding.path, reason: decoding.reason, decodingError: decoding)
        }
        return MockDataError(kind: .typeMismatch, fixture: name, file: file, jsonPath: "$", reason: String(describing: error))
    }

    static func file(for name: String, in directory: URL) -> URL {
        directory.appendingPathComponent(name + ".json").standardizedFileURL
    }

    private func searchedPlaces(for name: String) -> [String] {
        var places: [String] = []
        if let directory {
            places.append(Self.file(for: name, in: directory).path)
        }
        if let bundle {
            let folder = [bundle.resourceURL?.path ?? bundle.bundlePath, bundleSubdirectory].compactMap { $0 }.joined(separator: "/")
            places.append("the resources of bundle \(folder) (\(name).json)")
        }
        return places
    }

    /// Why `name` cannot name a fixture file, or `nil` when it can. Names may contain `/` to reach
    /// into subfolders, but must stay inside the fixtures directory.
    package static func problem(withFixtureName name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.hasSuffix(".json") { return "it ends in .json, which is added automatically; drop the extension" }
        if name.hasPrefix("/") { return "it is an absolute path; fixture names are relative to the fixtures directory" }
        if name.contains("\0") { return "it contains a NUL character" }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains(where: { $0.isEmpty }) { return "it has an empty path component (\"//\" or a trailing \"/\")" }
        if parts.contains(where: { $0 == ".." || $0 == "." }) {
            return "it contains \".\" or \"..\" components; fixtures must stay inside the fixtures directory"
        }
        return nil
    }
}
