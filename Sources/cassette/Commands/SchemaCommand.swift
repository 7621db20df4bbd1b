import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette schema`: the JSON Schema (draft 2020-12) inferred from each recorded endpoint.
///
/// Endpoints and samples are those of `cassette diff` (`EndpointSchemas`): 2xx JSON responses,
/// grouped by the routes of `--fixtures DIR/registry.json` when given, else by derived patterns.
/// Files are written only when their bytes change, so a second run with the same recordings
/// touches nothing and the output can be committed.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Export the JSON Schema (draft 2020-12) of every recorded endpoint.",
        discussion: """
            Infers one schema per endpoint from every 2xx response with a JSON body in the cassette \
            (a JSON Content-Type, or none and a body that parses): types, null, required properties \
            (present in every recorded object), array items and string formats (date-time, date, \
            uuid, email, uri, ...). Recordings are grouped by endpoint as `cassette diff` groups them: \
            by the routes of --fixtures DIR/registry.json when given, otherwise by a pattern derived \
            from the path (/api/users/42 is /api/users/{id}). Without --cassette the store's only \
            cassette is used, else dev.

            Without --out, prints one JSON object keyed by endpoint ("GET /api/users/{id}") with \
            sorted keys; for a cassette recorded from several upstreams, one such object per host, \
            keyed by origin ("https://api.example.com"), and with --out one directory per host \
            (DIR/api.example.com/...). With --out DIR, writes DIR/NAME.schema.json per endpoint, where NAME is the \
            fixture registry.json routes the endpoint to, else its default fixture name \
            (mock_api_users_id_get); files are pretty-printed with sorted keys and a final newline, \
            and rewritten only when they change, so running it twice changes nothing. \
            `cassette diff` skips *.schema.json files, so --out may be the fixtures directory.

            Examples:
              cassette schema
              cassette schema --cassette staging --out Schemas
              cassette schema --fixtures Tests/Fixtures --out Tests/Fixtures
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Write one NAME.schema.json file per endpoint into this directory (created when missing).", valueName: "dir"))
    var out: String?

    @Option(help: ArgumentHelp("A fixtures directory whose registry.json routes group the recordings and name the files.", valueName: "dir"))
    var fixtures: String?

    func validate() throws {
        if out?.isEmpty == true { throw ValidationError("--out needs a directory to write the schemas into") }
        if fixtures?.isEmpty == true { throw ValidationError("--fixtures needs the directory that holds registry.json") }
    }

    func run() async throws {
        let configFile = try store.loadConfig()
        let registry = try loadRegistry()
        let recording = try await RecordingSource(
            path: configFile.databasePath, cassette: store.cassette, includesConversationOperations: true, includesGRPC: true
        ).load()
        let hosts = RecordedHosts(recording.interactions)
        let perHost = hosts.hosts.map { ($0, EndpointSchemas(interactions: $0.interactions, registry: registry)) }
        if perHost.allSatisfy({ $0.1.isEmpty }) {
            Terminal.printWarning("cassette \(recording.cassette) in \(recording.path) has no 2xx JSON responses, so there is no schema to export")
        }
        if let out {
            // A multi-host cassette: one directory per host, so the same path on two hosts is
            // two schemas.
            for (host, schemas) in perHost {
                let directory = host.origin == nil ? out : (out as NSString).appendingPathComponent(host.directoryName)
                try write(schemas, to: directory, cassette: recording.cassette + (host.origin.map { " (\($0))" } ?? ""))
            }
        } else if !hosts.isMultiHost {
            let schemas = perHost[0].1
            let documents = schemas.endpoints.map { ($0.description, Self.document(for: $0, in: schemas)) }
            Terminal.printLine(JSONValue.object(JSONObject(documents)).prettyJSON)
        } else {
            let byHost = perHost.map { host, schemas in
                (host.origin ?? "", JSONValue.object(JSONObject(schemas.endpoints.map { ($0.description, Self.document(for: $0, in: schemas)) })))
            }
            Terminal.printLine(JSONValue.object(JSONObject(byHost)).prettyJSON)
        }
    }

    /// The endpoint's schema with its name as `title`.
    static func document(for endpoint: Endpoint, in schemas: EndpointSchemas) -> JSONValue {
        let schema = schemas[endpoint]?.schema ?? InferredSchema()
        guard case .object(var document) = schema.jsonSchema() else { return schema.jsonSchema() }
        document["title"] = .string(endpoint.description)
        return .object(document)
    }

    private func loadRegistry() throws(CLIError) -> MockResponseRegistry? {
        guard let fixtures else { return nil }
        let folder = URL(fileURLWithPath: fixtures, isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError.usage("the fixtures directory \(fixtures) does not exist; pass --fixtures with the folder that holds registry.json")
        }
        do {
            return try MockResponseRegistry.load(fixturesDirectory: folder)
        } catch {
            throw CLIError.usage(error.description)
        }
    }

    private func write(_ schemas: EndpointSchemas, to directory: String, cassette: String) throws(CLIError) {
        let names = try Self.fileNames(for: schemas)
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        var written = 0
        var lines: [String] = []
        for endpoint in schemas.endpoints {
            let relative = names[endpoint]! + FixtureFile.schemaFileSuffix
            let file = folder.appendingPathComponent(relative)
            let data = Data((Self.document(for: endpoint, in: schemas).prettyJSON + "\n").utf8)
            let shown = (directory.hasSuffix("/") ? directory : directory + "/") + relative
            let details = "\(endpoint), \(Formatting.count(schemas[endpoint]?.recordings ?? 0, "recording"))"
            if (try? Data(contentsOf: file)) == data {
                lines.append("unchanged \(shown)  (\(details))")
                continue
            }
            do {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: file, options: .atomic)
            } catch {
                throw CLIError("cannot write \(shown) (\(error.localizedDescription)); check that \(directory) is writable")
            }
            written += 1
            lines.append("wrote     \(shown)  (\(details))")
        }
        let total = schemas.endpoints.count
        lines.append("\(Formatting.count(total, "schema")) from cassette \(cassette) in \(directory): \(written) written, \(total - written) unchanged")
        Terminal.printLine(lines.joined(separator: "\n"))
    }

    /// Each endpoint's file name: the fixture registry.json routes it to, else its default
    /// fixture name. Two endpoints routed to one fixture both fall back to their default names.
    static func fileNames(for schemas: EndpointSchemas) throws(CLIError) -> [Endpoint: String] {
        var names: [Endpoint: String] = [:]
        for endpoint in schemas.endpoints {
            names[endpoint] = schemas.registeredFixture(for: endpoint) ?? endpoint.fixtureName
        }
        let shared = Dictionary(grouping: names.keys) { names[$0]! }.filter { $0.value.count > 1 }
        for endpoints in shared.values {
            for endpoint in endpoints { names[endpoint] = endpoint.fixtureName }
        }
        let clashes = Dictionary(grouping: names.keys) { names[$0]! }.filter { $0.value.count > 1 }
        if let (name, endpoints) = clashes.min(by: { $0.key < $1.key }) {
            let list = endpoints.sorted().map(\.description).joined(separator: " and ")
            throw CLIError(
                "\(list) would both be written to \(name)\(FixtureFile.schemaFileSuffix); route them to different fixtures in registry.json and pass --fixtures"
            )
        }
        return names
    }
}
