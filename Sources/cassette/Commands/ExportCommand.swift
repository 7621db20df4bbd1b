import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette export`: harvests recorded JSON responses into `MockAPIClient` fixtures, or writes
/// the recordings as a HAR file (`ExportCommand+HAR.swift`).
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write recorded JSON responses as mock fixtures (with their routes in registry.json), or recordings as HAR.",
        discussion: """
            Turns one cassette into fixtures for MockAPIClient: afterwards a MockAPIClient over DIR \
            answers the recorded requests with the same decoded values as replaying the cassette does.

            Endpoints: each recording belongs to the route in DIR/registry.json that matches it, and \
            keeps that route's pattern and fixture name, so hand-made registries are respected. \
            Otherwise path segments that are ids (numbers, UUIDs, hexadecimal strings of 16 or more \
            characters) become parameters ({id}, {id2}, ...) and the fixture is named like \
            mock_api_users_id_get (with _2, _3, ... appended if another endpoint has that name). The \
            query is ignored, as MockAPIClient ignores it. A cassette recorded from several upstreams \
            is exported one host per directory, each with its own registry.json (DIR/api.example.com, \
            DIR/auth.example.com), so the same path on two hosts never shares a fixture.

            Fixtures: only 2xx responses with a JSON body become fixtures (a Content-Type of .../json \
            or ...+json, or no Content-Type and a body that parses as JSON). Other statuses, empty \
            bodies (void requests need no fixture) and non-JSON bodies are listed as skipped with the \
            reason. Of several recordings of one endpoint the most recent wins (latest recording time, \
            then highest id). Files are pretty-printed JSON with sorted keys and a final newline; the \
            configuration's "redact" "jsonFields" are applied again (the store holds bodies redacted \
            with the rules of recording time).

            Files: a new file is created; a file that holds the same JSON is left as it is; a file \
            that differs is overwritten only with --force, otherwise it is listed with "would \
            overwrite" and the command exits with status 1 after writing everything else. Every file \
            is written atomically, fixtures first and registry.json last, and registry.json gains only \
            the routes of fixtures that were written or already equal (existing routes are kept; the \
            file is rewritten in its canonical form only when routes are added). \
            Running the command twice changes nothing. DIR is created when missing. --dry-run writes \
            nothing and lists what would change (with the same exit status).

            WebSocket conversations: each is written to DIR/websocket/ as one JSON file (named \
            after its path: websocket/chat.json, websocket/chat_2.json for the next connection) \
            with its handshake (URL, key, subprotocol, extensions, request headers), every message \
            (direction, kind, offsetMilliseconds, text or base64, fragments when there were \
            several) and its end (closed with code and reason, dropped, or cut); the same rules \
            for existing files apply.

            Without --cassette the store must hold exactly one cassette.

            --har FILE writes the cassette's recordings (every cassette's without --cassette) as a \
            HAR 1.2 file instead, in recorded order, which browsers' DevTools and mitmproxy open: \
            bodies as text when they are printable UTF-8, base64 otherwise; the stored \
            Content-Encoding listed with the headers (bodies stay decoded, as HAR wants); timings \
            from the recorded durations. A WebSocket conversation is the entry of its 101 with \
            Chrome's _resourceType "websocket" and _webSocketMessages (type send or receive, time, \
            opcode 1 for text and 2 for binary, data; binary data base64).

            Examples:
              cassette export --fixtures Tests/Fixtures
              cassette export --fixtures Fixtures --cassette staging --dry-run
              cassette export --fixtures Fixtures --force
              cassette export --har recordings.har --cassette staging
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("The fixtures directory (created when missing); its registry.json is read and updated.", valueName: "dir"))
    var fixtures: String?

    @Option(help: ArgumentHelp("Write the recordings as a HAR 1.2 file instead of fixtures.", valueName: "file"))
    var har: String?

    @Flag(help: "Overwrite fixture files whose contents differ.")
    var force = false

    @Flag(help: "List what would be written without writing anything.")
    var dryRun = false

    func validate() throws {
        if fixtures?.isEmpty == true { throw ValidationError("--fixtures needs a directory path") }
        if har?.isEmpty == true { throw ValidationError("--har needs a file path") }
        if (fixtures == nil) == (har == nil) { throw ValidationError("pass either --fixtures DIR or --har FILE") }
    }

    enum Selection: Sendable {
        case found(cassette: String, interactions: [Interaction], conversations: [Conversation], schema: ProtoSchema)
        case ambiguous([String])
    }

    func run() async throws {
        if let har {
            try await exportHAR(to: har)
            return
        }
        let fixtures = fixtures ?? ""
        let configFile = try store.loadConfig()
        let directory = URL(fileURLWithPath: fixtures, isDirectory: true)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw CLIError.usage("--fixtures \(fixtures) is a file, not a directory; pass a directory (it is created when missing)")
        }
        let existing: MockResponseRegistry
        do {
            existing = try MockResponseRegistry.load(fixturesDirectory: directory)
        } catch {
            throw CLIError.usage("\(error.description); fix it (or move it away) before exporting")
        }

        let filter = store.cassette
        let opened = try await store.openStore(configFile, access: .readOnly)
        let selection = try await opened.use { store throws(CassetteStoreError) -> Selection in
            let conversations = try store.conversations(cassette: nil)
            let cassettes = Set(try store.cassettes().filter { $0.interactionCount > 0 }.map(\.name) + conversations.map(\.cassette)).sorted()
            if let filter {
                guard cassettes.contains(filter) else { throw .missingCassette(filter, path: store.path, available: cassettes) }
                return .found(
                    cassette: filter, interactions: try store.interactions(cassette: filter), conversations: conversations.filter { $0.cassette == filter },
                    schema: try store.protoSchema())
            }
            guard let only = cassettes.first else { throw .missingCassette(nil, path: store.path, available: []) }
            guard cassettes.count == 1 else { return .ambiguous(cassettes) }
            return .found(
                cassette: only, interactions: try store.interactions(cassette: only), conversations: conversations, schema: try store.protoSchema())
        }
        let path = configFile.databasePath
        let (cassette, interactions, conversations, schema): (String, [Interaction], [Conversation], ProtoSchema)
        switch selection {
        case let .found(name, found, sockets, protoSchema):
            (cassette, interactions, conversations, schema) = (name, found, sockets, protoSchema)
        case .ambiguous(let names):
            throw CLIError.usage("\(path) holds several cassettes (\(names.joined(separator: ", "))); choose one with --cassette NAME")
        }

        // A multi-host cassette: each host's fixtures and registry.json in a directory of its own.
        var refused = 0
        // A cassette of conversations alone has no HTTP fixtures to report.
        for host in interactions.isEmpty && !conversations.isEmpty ? [] : RecordedHosts(interactions).hosts {
            var hostDirectory = directory
            var registry = existing
            var shown = fixtures
            if host.origin != nil {
                hostDirectory = directory.appendingPathComponent(host.directoryName, isDirectory: true)
                shown = (fixtures as NSString).appendingPathComponent(host.directoryName)
                do {
                    registry = try MockResponseRegistry.load(fixturesDirectory: hostDirectory)
                } catch {
                    throw CLIError.usage("\(error.description); fix it (or move it away) before exporting")
                }
            }
            let harvest = FixtureHarvester(registry: registry, redactor: configFile.redactor, rules: configFile.matchingRules).harvest(host.interactions)
            let plan = try FixtureExport(harvest: harvest, existing: registry, directory: hostDirectory, force: force)
            if !dryRun {
                try plan.apply()
            }
            let source = cassette + (host.origin.map { " (\($0))" } ?? "")
            Terminal.printLine(report(plan, cassette: source, recordings: host.interactions.count, directory: shown).joined(separator: "\n"))
            refused += plan.refusedCount
        }
        let webSockets = conversations.filter { $0.grpc == nil }
        if !webSockets.isEmpty {
            refused += try exportConversations(webSockets, cassette: cassette, to: directory, shown: fixtures)
        }
        let methods = GRPCMethodFixture.all(conversations, schema: schema)
        if !methods.isEmpty {
            refused += try exportGRPC(methods, cassette: cassette, to: directory, shown: fixtures)
        }
        if refused > 0 {
            let one = refused == 1
            let files = Formatting.count(refused, "fixture file")
            throw CLIError(
                "\(files) in \(fixtures) \(one ? "differs" : "differ") from the recordings and \(one ? "was" : "were") not overwritten; check \(one ? "it" : "them") and rerun with --force to replace \(one ? "it" : "them")"
            )
        }
    }

    // MARK: Report

    private func report(_ plan: FixtureExport, cassette: String, recordings: Int, directory: String) -> [String] {
        var lines: [String] = []
        for step in plan.steps {
            let verb: String
            var detail = Self.describe(step.fixture)
            switch step.action {
            case .create: verb = dryRun ? "would create" : "created"
            case .unchanged: verb = "unchanged"
            case .overwrite:
                verb = dryRun ? "would overwrite" : "overwrote"
                detail += dryRun ? "; differs" : "; differed"
            case .refuse:
                verb = "would overwrite"
                detail += "; differs; use --force"
            }
            lines.append("\(verb)  \(step.fixture.fileName)  (\(detail))")
        }
        for skipped in plan.skipped {
            let count = skipped.recordingCount > 1 ? "; \(Formatting.count(skipped.recordingCount, "recording"))" : ""
            lines.append("skipped  \(skipped.endpoint)  (\(skipped.reason)\(count))")
        }
        let routes = Formatting.count(plan.registry.registrations.count, "route")
        switch plan.registryAction {
        case .create:
            lines.append("\(dryRun ? "would create" : "created")  \(MockResponseRegistry.fileName)  (\(routes))")
        case .update:
            let added = plan.registry.registrations.count - plan.existingRouteCount
            lines.append("\(dryRun ? "would update" : "updated")  \(MockResponseRegistry.fileName)  (\(routes), \(added) new)")
        case .unchanged:
            lines.append("unchanged  \(MockResponseRegistry.fileName)  (\(routes))")
        case .none:
            break
        }
        lines.append(summary(plan, cassette: cassette, recordings: recordings, directory: directory))
        return lines
    }

    private func summary(_ plan: FixtureExport, cassette: String, recordings: Int, directory: String) -> String {
        func count(_ action: FixtureExport.Action) -> Int { plan.steps.count(where: { $0.action == action }) }
        let parts = [
            (count(.create), dryRun ? "to create" : "created"),
            (count(.overwrite), dryRun ? "to overwrite" : "overwritten"),
            (count(.unchanged), "unchanged"),
            (count(.refuse), "not overwritten (use --force)"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        let fixtures = Formatting.count(plan.steps.count, "fixture")
        let outcome = parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")
        let skipped = plan.skipped.isEmpty ? "" : "; \(Formatting.count(plan.skipped.count, "endpoint")) skipped"
        let source = "cassette \(cassette) (\(Formatting.count(recordings, "recording")))"
        let lead = (dryRun ? "Dry run, nothing written. Would export" : "Exported") + " \(fixtures) from \(source) to \(directory)"
        return lead + outcome + skipped + "."
    }

    /// `GET /api/users/{id}, from 3 recordings`.
    private static func describe(_ fixture: HarvestedFixture) -> String {
        var text = fixture.endpoints.map(\.description).joined(separator: " and ")
        if let variables = fixture.variables { text += " " + variables.jsonString(options: .sortedKeys) }
        text += ", from \(Formatting.count(fixture.recordingCount, "recording"))"
        if fixture.skippedCount > 0 {
            text += ", \(fixture.skippedCount) more skipped as not 2xx JSON"
        }
        return text
    }
}
