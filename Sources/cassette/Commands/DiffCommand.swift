import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette diff`: schema drift between fixtures and a recording, or between two recordings.
///
/// Design decisions (the help text says the same to users):
/// - Recorded side: the cassette's interactions grouped by `Endpoint.of(method:url:registry:)`,
///   with the registry from `--fixtures DIR` when it has one, so the user's patterns win over
///   derived ones. Only 2xx responses with JSON bodies contribute (`EndpointSchemas`).
/// - Fixture side: every `*.json` under DIR, subfolders included (`FixtureFile.all(in:)`),
///   matched to endpoints by a registry route naming it, else by the fallback names
///   (`DriftReport.compare(fixtures:recorded:ignoring:)`).
/// - Notes never fail a run; `--fail-on` (default `error`) sets the threshold for status 1.
/// - `--ignore` takes `$.path` for every endpoint or `METHOD /pattern:$.path` for one.
/// - Two recordings: the first (`--db`/first `--cassette`) is the baseline and plays the fixture,
///   the second (`--against`/second `--cassette`) plays the API. `--fixtures` is not combined with
///   them, so each run answers one question.
/// - Status: 0 clean, 1 findings at or above `--fail-on`, 2 usage or input errors (a missing
///   store or folder, a fixture that is not JSON, a bad registry.json), never 1 for those.
struct DiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Find schema drift between fixtures and recorded API responses, or between two recordings.",
        discussion: """
            Compares shapes, never values: fields, types, null, string formats (date-time, uuid, \
            email, uri, ...). The rules (the JSON output's "rule") by severity:
              error    fieldNotInAPI, typeMismatch, rootTypeMismatch, apiSendsNull
              warning  fieldMissingInFixture, fixtureHasNull, formatChanged
              note     fieldOptionalInAPI, fixtureWithoutRecording, endpointWithoutFixture,
                       graphQLErrors

            Errors break a model written from the fixture: a field the API never sends, a changed \
            type, null where the fixture never has it. Warnings are gaps: a field the fixture lacks, \
            null the API never sends, a changed string format. Notes: the API sometimes omits a \
            field, a fixture that nothing recorded matches, a recorded endpoint without a fixture, \
            a GraphQL operation whose answers carried an errors array (each GraphQL operation is an \
            endpoint of its own, compared by its data: docs/graphql.md).

            Fixtures against a recording (--fixtures DIR): the recorded side is every 2xx response \
            with a JSON body (a JSON Content-Type, or none and a body that parses) in the cassette, \
            grouped by endpoint: the routes of DIR/registry.json when one matches, otherwise a \
            pattern derived from the path (/api/users/42 is /api/users/{id}). The fixture side is \
            every *.json file under DIR, subfolders included (registry.json and *.schema.json \
            skipped); a fixture's name is its relative path without .json. A fixture is compared \
            with the endpoints registry.json routes to it; when no route names it, with the \
            recorded endpoints whose default fixture name it has: the endpoint's \
            (mock_api_users_id_get for GET /api/users/{id}) or that of a recorded path \
            (mock_api_users_1_get). Each comparison uses the schema of ALL recordings of the \
            endpoint, so a field that is sometimes null or absent shows up.

            A cassette recorded from several hosts whose fixtures are in DIR/HOST (as export --fixtures writes them) \
            is checked host by host, each against its own fixtures.

            Two recordings (--against OTHER.db, or --cassette A --cassette B): the same comparison \
            endpoint by endpoint, so an API change shows before any fixture exists. The first \
            recording (--db, or the first --cassette) is the baseline and plays the fixture; the \
            second plays the API. Endpoints are the derived patterns (no registry.json takes part). \
            --against reads the same cassette name in OTHER.db unless --against-cassette names another.

            Without --cassette a store's only cassette is used, else dev.

            --ignore PATH drops the findings at PATH and inside it: $.meta for every endpoint, or \
            'GET /api/users/{id}:$.email' for one (parameter names do not matter). '$' drops a whole \
            endpoint, its notes included. Repeat for more.

            Text output: one block per endpoint with findings, a header line such as
              GET /api/users/{id}  (fixture mock_api_users_id_get.json, 3 recordings)

            Then one line per finding (severity, JSON path, message), and a summary line at the end; \
            colour only on a terminal and never with NO_COLOR. --format json prints \
            {"endpoints": [...], "summary": {...}} with sorted keys in a stable order: every \
            comparison (clean ones too) with endpoint, fixture, baselineRecordings, recordings and \
            findings (path, rule, severity, expected, actual, message); "expected" is what the API \
            (second) side has, "actual" what the fixture (baseline) side has.

            Exit status: 0 no findings at or above --fail-on, 1 findings at or above it (notes never \
            count), 2 usage or input errors (missing store or folder, invalid fixture JSON, bad \
            registry.json).

            Examples:
              cassette diff --fixtures Tests/Fixtures
              cassette diff --fixtures Tests/Fixtures --cassette staging --fail-on warning
              cassette diff --fixtures Tests/Fixtures --ignore '$.meta'
              cassette diff --fixtures Tests/Fixtures \\
                --ignore 'GET /api/users/{id}:$.avatar'
              cassette diff --cassette dev --cassette staging
              cassette diff --db last-week.db --against cassettes.db --format json
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    enum FailOn: String, ExpressibleByArgument, CaseIterable {
        case error, warning

        var severity: SchemaFinding.Severity {
            switch self {
            case .error: .error
            case .warning: .warning
            }
        }
    }

    @Option(help: ArgumentHelp("The cassette store (default: \"database\" from the configuration file, else cassettes.db).", valueName: "path"))
    var db: String?

    @Option(help: ArgumentHelp("The configuration file (default: cassette.json in the working directory, when present).", valueName: "path"))
    var config: String?

    @Option(
        help: ArgumentHelp("The cassette to read (default: the store's only cassette, else dev). Give it twice to compare two cassettes.", valueName: "name"))
    var cassette: [String] = []

    @Option(help: ArgumentHelp("The fixtures directory: *.json fixtures and an optional registry.json.", valueName: "dir"))
    var fixtures: String?

    @Option(help: ArgumentHelp("Compare the recording with this other store instead of with fixtures.", valueName: "other.db"))
    var against: String?

    @Option(help: ArgumentHelp("The cassette to read from the --against store (default: the same name).", valueName: "name"))
    var againstCassette: String?

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Option(help: ArgumentHelp("Drop findings at this JSON path ($.meta) or endpoint path ('GET /api/users/{id}:$.email'); repeatable.", valueName: "path"))
    var ignore: [String] = []

    @Option(help: "Exit with status 1 for findings of this severity or worse: error or warning.")
    var failOn: FailOn = .error

    func validate() throws {
        if db?.isEmpty == true { throw ValidationError("--db needs a path to the cassette store") }
        if config?.isEmpty == true { throw ValidationError("--config needs a path to a configuration file") }
        if cassette.contains(where: \.isEmpty) { throw ValidationError("--cassette needs a cassette name") }
        if fixtures?.isEmpty == true { throw ValidationError("--fixtures needs the directory that holds the fixtures") }
        if against?.isEmpty == true { throw ValidationError("--against needs a path to the other cassette store") }
        if againstCassette?.isEmpty == true { throw ValidationError("--against-cassette needs a cassette name") }
        if cassette.count > 2 {
            throw ValidationError("--cassette was given \(cassette.count) times; give it once, or twice to compare two cassettes")
        }
        if againstCassette != nil && against == nil {
            throw ValidationError("--against-cassette names a cassette of the --against store; add --against OTHER.db")
        }
        if against != nil && cassette.count == 2 {
            throw ValidationError("compare two cassettes of one store (--cassette A --cassette B) or two stores (--against OTHER.db), not both")
        }
        let comparesRecordings = against != nil || cassette.count == 2
        if fixtures != nil && comparesRecordings {
            throw ValidationError(
                "--fixtures compares fixtures with one recording, and --against or a second --cassette compares two recordings; use one or the other")
        }
        if fixtures == nil && !comparesRecordings {
            throw ValidationError(
                "say what to compare: --fixtures DIR (fixtures against a recording), --against OTHER.db, or --cassette A --cassette B (two recordings)")
        }
        for pattern in ignore {
            do {
                _ = try DriftIgnore(pattern)
            } catch {
                throw ValidationError("--ignore: \(error.description)")
            }
        }
    }

    func run() async throws {
        var configFile = try CassetteConfigFile.load(explicitPath: config)
        if let db { configFile.databasePath = db }
        let ignores = ignore.compactMap { try? DriftIgnore($0) }
        let report: DriftReport
        let rendering: DriftReportText
        if let fixtures {
            (report, rendering) = try await Self.compareFixtures(in: fixtures, storePath: configFile.databasePath, cassette: cassette.first, ignores: ignores)
        } else {
            (report, rendering) = try await compareRecordings(storePath: configFile.databasePath, ignores: ignores)
        }
        for pattern in ignores where pattern.isScoped && !report.endpoints.contains(where: { pattern.applies(to: $0.endpoint) }) {
            Terminal.printWarning("--ignore '\(pattern)' names no endpoint of this comparison; check the method and pattern")
        }
        switch format {
        case .text:
            Terminal.printLine(rendering.lines(for: report).joined(separator: "\n"))
        case .json:
            Terminal.printLine(try Self.json(report))
        }
        if report.hasFindings(atOrAbove: failOn.severity) {
            throw ExitCode(1)
        }
    }

    /// The fixtures of `directory` against the recording of `cassette` (nil: the store's only
    /// one, else dev) in the store at `storePath`; also the Drift view's (`UIFindings`).
    static func compareFixtures(
        in directory: String, storePath: String, cassette: String?, ignores: [DriftIgnore]
    ) async throws(CLIError) -> (DriftReport, DriftReportText) {
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError.usage("the fixtures directory \(directory) does not exist; pass --fixtures with the folder that holds your *.json fixtures")
        }
        let recording = try await RecordingSource(path: storePath, cassette: cassette, includesConversationOperations: true, includesGRPC: true).load()
        let hosts = RecordedHosts(recording.interactions)
        if hosts.isMultiHost, hosts.hosts.contains(where: { Self.isDirectory(folder.appendingPathComponent($0.directoryName)) }) {
            // `export --fixtures` of a multi-host cassette: DIR/HOST per host, each compared with
            // its own host's recordings.
            var sides: [DriftReport.HostFixtures] = []
            for host in hosts.hosts {
                let hostFolder = folder.appendingPathComponent(host.directoryName, isDirectory: true)
                guard Self.isDirectory(hostFolder) else {
                    sides.append(DriftReport.HostFixtures(host: host, fixtures: [], registry: nil))
                    continue
                }
                let shown = (directory as NSString).appendingPathComponent(host.directoryName)
                let (registry, files) = try Self.loadFixtures(hostFolder, shown: shown)
                sides.append(DriftReport.HostFixtures(host: host, fixtures: files, registry: registry))
            }
            return (DriftReport.compare(hosts: sides, ignoring: ignores), DriftReportText(sides: nil))
        }
        let (registry, files) = try Self.loadFixtures(folder, shown: directory)
        let recorded = EndpointSchemas(interactions: recording.interactions, registry: registry)
        let report = DriftReport.compare(fixtures: files, recorded: recorded, ignoring: ignores)
        return (report, DriftReportText(sides: nil))
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The registry and fixtures of `folder`; `shown`: the folder as the user would write it.
    private static func loadFixtures(_ folder: URL, shown: String) throws(CLIError) -> (MockResponseRegistry, [FixtureFile]) {
        let registry: MockResponseRegistry
        do {
            registry = try MockResponseRegistry.load(fixturesDirectory: folder)
        } catch {
            throw CLIError.usage(error.description)
        }
        do {
            return (registry, try FixtureFile.all(in: folder))
        } catch {
            throw CLIError.usage(Self.describe(error, directory: shown))
        }
    }

    private func compareRecordings(storePath: String, ignores: [DriftIgnore]) async throws(CLIError) -> (DriftReport, DriftReportText) {
        let baselineSource = RecordingSource(path: storePath, cassette: cassette.first, includesConversationOperations: true, includesGRPC: true)
        let currentSource: RecordingSource
        if let against {
            currentSource = RecordingSource(
                path: against, cassette: againstCassette ?? cassette.first,
                storeFlag: "--against", cassetteFlag: againstCassette == nil ? "--cassette" : "--against-cassette",
                includesConversationOperations: true, includesGRPC: true
            )
        } else {
            currentSource = RecordingSource(path: storePath, cassette: cassette[1], includesConversationOperations: true, includesGRPC: true)
        }
        let baseline = try await baselineSource.load()
        let current = try await currentSource.load()
        let sides = Self.sides(baseline, current)
        let report = DriftReport.compare(
            baseline: EndpointSchemas(hostsOf: baseline.interactions),
            current: EndpointSchemas(hostsOf: current.interactions),
            sides: sides, ignoring: ignores
        )
        return (report, DriftReportText(sides: sides))
    }

    /// Names the two recordings by cassette when they differ, else by store file.
    static func sides(_ baseline: RecordingSource.Loaded, _ current: RecordingSource.Loaded) -> SchemaDiff.Sides {
        if baseline.cassette != current.cassette {
            return SchemaDiff.Sides(fixture: baseline.cassette, api: current.cassette)
        }
        let baseName = URL(fileURLWithPath: baseline.path).lastPathComponent
        let currentName = URL(fileURLWithPath: current.path).lastPathComponent
        if baseName != currentName {
            return SchemaDiff.Sides(fixture: baseName, api: currentName)
        }
        return SchemaDiff.Sides(fixture: baseline.path, api: current.path)
    }

    /// The report as pretty JSON with sorted keys: encoded once through `Codable`, then written by
    /// the library's writer, whose output depends on nothing but the value.
    static func json(_ report: DriftReport) throws -> String {
        let data = try JSONEncoder().encode(report)
        return try JSONValue(parsing: data).prettyJSON
    }

    /// A fixture problem with the file named as the user wrote the directory.
    static func describe(_ error: MockDataError, directory: String) -> String {
        let file = (directory.hasSuffix("/") ? directory : directory + "/") + error.fixture + ".json"
        switch error.kind {
        case .invalidJSON:
            // The parser's reason already says what to do.
            return "\(file) is not valid JSON at line \(error.line ?? 0), column \(error.column ?? 0): \(error.reason ?? "syntax error")"
        default:
            return "cannot read \(error.file ?? file) (\(error.reason ?? "unknown error")); check its permissions"
        }
    }
}
