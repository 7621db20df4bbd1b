import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette codegen`: source code generated from the recordings. One language so far.
struct CodegenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codegen",
        abstract: "Generate model code from the recordings.",
        subcommands: [CodegenSwiftCommand.self]
    )
}

/// `cassette codegen swift`: Codable types for every recorded JSON endpoint.
///
/// Decisions (the help says the same): one file per type named after it; files carrying the
/// generated marker that the recordings no longer produce are removed, any other file in the
/// directory is left alone; files are rewritten only when their bytes change; `--check` writes
/// nothing and exits 1 on any difference, so CI catches models that drifted from the recordings.
struct CodegenSwiftCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swift",
        abstract: "Write Codable Swift types for every recorded JSON endpoint.",
        discussion: """
            Each endpoint's response type is inferred from ALL its 2xx JSON responses, its request \
            type from all its JSON request bodies, so a field is optional because some recording \
            lacked it or held null. Endpoints are grouped as `cassette diff` groups them \
            (/api/users/42 is /api/users/{id}).

            Names follow the design rules: GET /api/users/{id} answers a User, GET /api/users \
            answers [User], POST /api/nutrition/analyze has AnalyzeNutritionRequest and \
            AnalyzeNutritionResponse, POST /api/users has CreateUserRequest. Nested objects are \
            named from their keys (address → Address, meals → [Meal]); structs with the same shape \
            are generated once. Types: Int, Double, Bool, String, Date (RFC 3339 date-time \
            strings, decoded by JSONCoding's ISO-8601 strategy), arrays, and JSONValue (written \
            into --out when needed) for unions and locations nothing was recorded for. Every \
            struct is public, Codable, Sendable and Equatable, with explicit CodingKeys wherever a \
            JSON key is not the Swift name (snake_case, kebab-case, leading digits), and a header \
            naming the endpoints and recordings it came from. Same recordings, same bytes.

            Writes DIR/TYPE.swift per type, only when the bytes change, and removes generated \
            files the recordings no longer produce (other files are never touched). --tests DIR \
            also writes DIR/RecordedModelDecodingTests.swift, a Swift Testing suite that decodes \
            every recorded body of each endpoint with its type, reading the store through \
            WellPlateNetworking (CASSETTE_DB overrides the store path it names); --module NAME \
            adds `@testable import NAME` to it. A cassette recorded from several upstreams gets one \
            directory of types (and of tests) per host, DIR/api.example.com and so on, so the same \
            path on two hosts never shares a type; put each in a module of its own.

            --check writes nothing: exit 0 when the files match what would be generated, 1 when \
            they differ (the changed, missing and stale types are listed), 2 on usage errors.

            Examples:
              cassette codegen swift --out Sources/Models
              cassette codegen swift --out Sources/Models --tests Tests/ModelsTests --module Models
              cassette codegen swift --out Sources/Models --check
            """
    )

    static let testsFileName = "RecordedModelDecodingTests.swift"

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("The directory for the generated types (created when missing).", valueName: "dir"))
    var out: String

    @Option(help: ArgumentHelp("Also write a Swift Testing suite that decodes every recorded body into this directory.", valueName: "dir"))
    var tests: String?

    @Option(help: ArgumentHelp("The module holding the generated types, imported by the --tests suite.", valueName: "name"))
    var module: String?

    @Flag(help: "Write nothing; exit 1 when the files differ from what would be generated.")
    var check = false

    @OptionGroup var progressFlags: ProgressFlags

    func validate() throws {
        if out.isEmpty { throw ValidationError("--out needs a directory for the generated types") }
        if tests?.isEmpty == true { throw ValidationError("--tests needs a directory for the generated test suite") }
        if let module, module.isEmpty || !module.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
            throw ValidationError("--module needs a Swift module name such as Models")
        }
        if module != nil && tests == nil {
            throw ValidationError("--module names the import of the --tests suite; add --tests DIR")
        }
    }

    func run() async throws {
        let settings = try store.loadConfig()
        let progress = progressFlags.line()
        defer { progress.finish() }
        let recording = try await RecordingSource(path: settings.databasePath, cassette: store.cassette).load(
            progress: progress.step("reading", unit: "recordings"))
        // A multi-host cassette: each host's types in a directory of its own (DIR/api.example.com),
        // so the same path on two hosts never shares a type.
        var outOfDate = false
        for host in RecordedHosts(recording.interactions).hosts {
            let inHost = { (directory: String) in host.origin == nil ? directory : (directory as NSString).appendingPathComponent(host.directoryName) }
            let current = try generate(
                host.interactions, cassette: recording.cassette, origin: host.origin, storePath: settings.databasePath, out: inHost(out),
                tests: tests.map(inHost), progress: progress)
            outOfDate = outOfDate || !current
        }
        if outOfDate { throw ExitCode(1) }
    }

    /// Generates (or with --check compares) one host's types; returns whether they were current.
    private func generate(
        _ interactions: [Interaction], cassette: String, origin: String?, storePath: String, out: String, tests: String?, progress: ProgressLine
    ) throws -> Bool {
        // One model per GraphQL operation (docs/graphql.md), not one for every answer of its URL.
        let operations = RecordedOperations(
            interactions: interactions, splitsGraphQLOperations: true, progress: progress.step("inferring types", unit: "recordings"))
        progress.status("generating types")
        let models = SwiftModelGenerator(cassette: cassette).generate(operations)
        progress.finish()
        let recording = (cassette: cassette + (origin.map { " (\($0))" } ?? ""), path: storePath)
        if models.roots.isEmpty {
            Terminal.printWarning("cassette \(recording.cassette) in \(recording.path) has no JSON bodies, so there are no types to generate")
        }
        var plan = GeneratedFilesPlan(directory: out)
        for file in models.files {
            plan.add(file.name, contents: file.contents, typeName: file.typeName)
        }
        var testsPlan: GeneratedFilesPlan?
        if let tests {
            var testFiles = GeneratedFilesPlan(directory: tests, removesStale: false)
            testFiles.add(
                Self.testsFileName, contents: models.decodingTests(storePath: storePath, module: module), typeName: "RecordedModelDecodingTests")
            testsPlan = testFiles
        }
        if check {
            let changes = try plan.changes() + (testsPlan?.changes() ?? [])
            guard changes.isEmpty else {
                Terminal.printLine(
                    (changes.map(\.line) + [
                        "\(Formatting.count(changes.count, "type")) out of date in \(out); run `cassette codegen swift` without --check and commit the result"
                    ]).joined(separator: "\n"))
                return false
            }
            Terminal.printLine("\(Formatting.count(models.files.count, "type")) in \(out) match the recordings of cassette \(recording.cassette)")
            return true
        }
        var lines = try plan.apply()
        if var testsPlan { lines += try testsPlan.apply() }
        var table = TextTable([.init(title: "ENDPOINT"), .init(title: "BODY"), .init(title: "TYPE"), .init(title: "RECORDINGS", alignment: .right)])
        for root in models.roots {
            table.append([root.endpoint.description, root.role.rawValue, root.typeName, String(root.recordingIDs.count)])
        }
        let rendered = table.render(maxWidth: nil)
        lines += [""] + [rendered.header] + rendered.lines + [""]
        let summary = plan.summary
        lines.append(
            "\(Formatting.count(models.files.count, "type")) for \(Formatting.count(Set(models.roots.map(\.endpoint)).count, "endpoint")) from cassette \(recording.cassette) in \(out): \(summary)"
        )
        Terminal.printLine(lines.joined(separator: "\n"))
        return true
    }
}
