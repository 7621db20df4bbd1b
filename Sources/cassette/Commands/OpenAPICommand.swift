import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette openapi`: an OpenAPI 3.1 document of the recorded API.
///
/// Decisions: the server is the upstream the cassette was recorded from (the cassette's metadata,
/// else the origin of its recorded URLs); a file is rewritten only when its bytes change; the
/// examples are redacted once more with the current rules, as `export` does for fixtures.
struct OpenAPICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi",
        abstract: "Write an OpenAPI 3.1 document of the recorded API.",
        discussion: """
            One path per endpoint (/api/users/42 is /api/users/{id}, with the path parameter typed \
            from the values recorded), one operation per method, the query parameters seen with \
            their types (required when every recording sent them), request bodies and responses \
            per status and media type with the JSON Schema inferred from ALL their recordings and \
            one example each (the most recent recording, redacted). The server is the upstream \
            the cassette was recorded from. Keys are sorted: same recordings, same bytes.

            JSON by default, YAML with --format yaml (or an --out file ending in .yaml or .yml). \
            Without --out the document goes to stdout.

            The document validates with openapi-spec-validator and feeds swift-openapi-generator: \
            save it as Sources/CLIENT/openapi.yaml next to an openapi-generator-config.yaml \
            (generate: [types, client]) and add the OpenAPIGenerator plugin to that target.

            Examples:
              cassette openapi --out openapi.json
              cassette openapi --format yaml --out Sources/APIClient/openapi.yaml
              cassette openapi --cassette staging --format yaml
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, yaml
    }

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Write the document to this file instead of stdout.", valueName: "file"))
    var out: String?

    @Option(help: "Output format: json or yaml (default: yaml for an --out file ending in .yaml or .yml, else json).")
    var format: Format?

    @Option(help: ArgumentHelp("The document's info.title (default: \"Recorded API (cassette NAME)\").", valueName: "text"))
    var title: String?

    @OptionGroup var progressFlags: ProgressFlags

    func validate() throws {
        if out?.isEmpty == true { throw ValidationError("--out needs a file to write the document to") }
        if title?.isEmpty == true { throw ValidationError("--title needs a text") }
    }

    var effectiveFormat: Format {
        if let format { return format }
        if let out, out.hasSuffix(".yaml") || out.hasSuffix(".yml") { return .yaml }
        return .json
    }

    func run() async throws {
        let settings = try store.loadConfig()
        let progress = progressFlags.line()
        defer { progress.finish() }
        let recording = try await RecordingSource(path: settings.databasePath, cassette: store.cassette).load(
            progress: progress.step("reading", unit: "recordings"))
        let server = try await Self.server(of: recording)
        let builder = OpenAPIDocumentBuilder(title: title ?? "Recorded API (cassette \(recording.cassette))", server: server, redactor: settings.redactor)
        // Each GraphQL operation described on its own, all in the one operation of their path.
        let operations = RecordedOperations(
            interactions: recording.interactions, splitsGraphQLOperations: true, progress: progress.step("inferring schemas", unit: "recordings"))
        progress.status("writing the document")
        let hosts = RecordedHosts(recording.interactions)
        let document: JSONValue
        if hosts.isMultiHost {
            // One server entry per host, each path naming its host.
            let upstreams = try await Self.upstreams(of: recording)
            document = builder.document(
                hosts: hosts.hosts.map { host in
                    let upstream = upstreams.first { CassetteInfo.origin(of: $0) == host.origin } ?? host.origin.flatMap(URL.init(string:))
                    return (upstream, RecordedOperations(interactions: host.interactions, splitsGraphQLOperations: true))
                })
        } else {
            document = builder.document(operations)
        }
        let text: String
        switch effectiveFormat {
        case .json:
            text = document.prettyJSON + "\n"
        case .yaml:
            do {
                text = try YAMLWriter.yaml(document)
            } catch {
                throw CLIError("cannot write the document as YAML (\(error)); use --format json")
            }
        }
        progress.finish()
        guard let out else {
            Terminal.write(Data(text.utf8))
            return
        }
        let url = URL(fileURLWithPath: out)
        let data = Data(text.utf8)
        let paths = operations.endpoints.map(\.pattern)
        let methods = Set(operations.endpoints.map { "\($0.method.rawValue) \($0.pattern)" }).count
        let graphQL = operations.endpoints.count(where: { $0.operation != nil })
        let within = graphQL == 0 ? "" : " (holding \(Formatting.count(graphQL, "GraphQL operation")))"
        let summary =
            "\(Formatting.count(Set(paths).count, "path")), \(Formatting.count(methods, "operation"))\(within) from \(Formatting.count(recording.interactions.count, "recording")) of cassette \(recording.cassette)"
        if (try? Data(contentsOf: url)) == data {
            Terminal.printLine("unchanged \(out)  (\(summary))")
            return
        }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw CLIError("cannot write \(out) (\(error.localizedDescription)); check that its directory is writable")
        }
        Terminal.printLine("wrote     \(out)  (\(summary))")
    }

    /// Every upstream a multi-host cassette was recorded from, as given when recording.
    static func upstreams(of recording: RecordingSource.Loaded) async throws -> [URL] {
        let store: CassetteStore
        do {
            store = try await CassetteStore.open(path: recording.path, access: .readOnly)
        } catch {
            throw CLIError.usage(error.message)
        }
        let cassette = recording.cassette
        return try await store.use { store throws(CassetteStoreError) in try store.cassette(named: cassette) }?.upstreams ?? []
    }

    /// The cassette's recorded upstream, else the origin of its first recorded URL.
    static func server(of recording: RecordingSource.Loaded) async throws -> URL? {
        let store: CassetteStore
        do {
            store = try await CassetteStore.open(path: recording.path, access: .readOnly)
        } catch {
            throw CLIError.usage(error.message)
        }
        let cassette = recording.cassette
        let info = try await store.use { store throws(CassetteStoreError) in try store.cassette(named: cassette) }
        if let upstream = info?.upstream, let url = URL(string: upstream) { return url }
        let origins = recording.interactions.compactMap { interaction -> String? in
            guard let components = URLComponents(string: interaction.url), let scheme = components.scheme, let host = components.host else { return nil }
            return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
        }
        return origins.min().flatMap(URL.init(string:))
    }
}
