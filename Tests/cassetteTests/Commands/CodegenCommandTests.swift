import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette codegen swift`, run as the real binary; the generated code is compiled with swiftc
/// and must decode every recorded body.
@Suite("cassette codegen swift")
final class CodegenCommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// The committed recording of the sample API at the repository root.
    static var sampleStore: URL {
        ExternalTool.packageRoot.appendingPathComponent("cassettes.db")
    }

    private func storedInteractions() async throws -> [Interaction] {
        let store = try await CassetteStore.open(path: workspace.storePath, access: .readOnly)
        let interactions = try await store.interactions(cassette: nil)
        try await store.close()
        return interactions
    }

    private func generateAndCompile(extraSources: [String: String] = [:]) async throws -> (GeneratedSwiftModels, GeneratedModelsCompiler.Outcome) {
        let result = try await workspace.run("codegen", "swift", "--out", "Models")
        #expect(result.status == 0, "\(result)")
        let interactions = try await storedInteractions()
        let models = SwiftModelGenerator(cassette: "dev").generate(RecordedOperations(interactions: interactions))
        for file in models.files {
            #expect(try String(contentsOfFile: workspace.path("Models/\(file.name)"), encoding: .utf8) == file.contents, "\(file.name)")
        }
        let outcome = try await GeneratedModelsCompiler.compileAndDecode(
            models: URL(fileURLWithPath: workspace.path("Models")), roots: models.roots,
            interactions: interactions, in: workspace.directory, extraSources: extraSources
        )
        return (models, outcome)
    }

    @Test("tricky shapes: the generated code compiles in Swift 6 mode and decodes every recorded body")
    func trickyShapesCompileAndDecode() async throws {
        try await workspace.record(CodegenSamples.interactions)
        let (models, outcome) = try await generateAndCompile()
        #expect(outcome.compile.status == 0, "\(outcome.compile)")
        #expect(outcome.run?.status == 0, "\(outcome.run.map(\.description) ?? "not run")")
        // 3 meals, 1 tags list, 1 stats, 1 user, 1 profile, the log response and its request.
        #expect(outcome.bodies == 9)
        let roots = Dictionary(uniqueKeysWithValues: models.roots.map { ("\($0.endpoint) \($0.role.rawValue)", $0.typeName) })
        #expect(roots["GET /api/meals/{id} response"] == "Meal")
        #expect(roots["GET /api/tags response"] == "[Tag]")
        #expect(roots["GET /api/stats response"] == "[[Int]]")
        #expect(roots["GET /api/profile response"] == "Profile")
        #expect(roots["POST /api/meals/log response"] == "LogMealsResponse")
        #expect(roots["POST /api/meals/log request"] == "LogMealsRequest")
        #expect(roots["GET /api/health response"] == nil, "a text/plain body has no model")
        // The profile's owner and friends have the user's shape: one type.
        #expect(
            models.files.map(\.typeName) == ["Extra", "Item", "JSONValue", "LogMealsRequest", "LogMealsResponse", "Meal", "Nutrient", "Profile", "Tag", "User"])
    }

    /// Keys named like the platform's types, nested so that each becomes a type of its own.
    static let platformKeys = [
        "bundle", "timer", "notification", "task", "process", "thread", "locale", "calendar", "progress", "regex", "result",
        "error", "duration", "range", "mirror", "unicode", "operation", "predicate", "expression", "measurement", "url_request",
        "date_components", "dispatch_queue", "main_actor", "character_set", "index_set", "user_defaults", "file_manager", "json_decoder",
    ]

    @Test("models compile beside import Foundation: no generated type shadows a platform type (a key 'bundle' is not struct Bundle)")
    func generatedTypesNeverShadowPlatformTypes() async throws {
        let fields = Self.platformKeys.enumerated().map { #""\#($1)": {"n\#($0)": \#($0), "label": "x"}"# }.joined(separator: ", ")
        try await workspace.record([Recordings.make(.get, "/api/platform", body: Data("{\(fields)}".utf8))])
        // The app's own code, in the models' module, using each of those platform types.
        let uses = """
            import Foundation
            import Dispatch
            #if canImport(FoundationNetworking)
            import FoundationNetworking
            #endif

            func usesPlatformTypes() async throws {
                _ = Bundle.main.bundlePath
                _ = Timer.self
                _ = Notification.Name("n")
                _ = Task<Void, Never> {}
                _ = ProcessInfo.processInfo.processIdentifier
                _ = Process.self
                _ = Thread.self
                _ = Locale.current.identifier
                _ = Calendar.current.firstWeekday
                _ = Progress(totalUnitCount: 1)
                _ = try Regex("a+")
                _ = Result<Int, any Error>.success(1)
                _ = Duration.seconds(1)
                _ = Range<Int>(uncheckedBounds: (0, 1))
                _ = Mirror(reflecting: 1).children.count
                _ = Unicode.Scalar(65)
                _ = OperationQueue()
                _ = Measurement(value: 1, unit: UnitLength.meters)
                _ = URLRequest.self
                _ = DateComponents(year: 2026)
                _ = DispatchQueue.main
                _ = CharacterSet.letters
                _ = IndexSet(integer: 1)
                _ = UserDefaults.standard
                _ = FileManager.default
                _ = JSONDecoder()
                _ = MainActor.shared
            }
            """
        let (models, outcome) = try await generateAndCompile(extraSources: ["Uses.swift": uses])
        #expect(outcome.compile.status == 0, "\(outcome.compile)")
        #expect(outcome.run?.status == 0, "\(outcome.run.map(\.description) ?? "not run")")
        let names = Set(models.files.map(\.typeName))
        #expect(names.contains("BundleModel") && names.contains("TaskModel") && names.contains("RegexModel"), "\(names.sorted())")
        #expect(names.filter { SwiftNaming.shadowsPlatformType($0) }.isEmpty, "\(names.sorted())")
    }

    @Test("the sample API's committed recordings: generated code compiles and decodes every body")
    func sampleRecordingsCompileAndDecode() async throws {
        try FileManager.default.copyItem(atPath: Self.sampleStore.path, toPath: workspace.storePath)
        let (models, outcome) = try await generateAndCompile()
        #expect(outcome.compile.status == 0, "\(outcome.compile)")
        #expect(outcome.run?.status == 0, "\(outcome.run.map(\.description) ?? "not run")")
        #expect(outcome.bodies >= 7)
        let roots = Dictionary(uniqueKeysWithValues: models.roots.map { ("\($0.endpoint) \($0.role.rawValue)", $0.typeName) })
        #expect(roots["GET /api/users/{id} response"] == "User")
        #expect(roots["GET /api/users response"] == "[User]")
        #expect(roots["POST /api/nutrition/analyze response"] == "AnalyzeNutritionResponse")
        #expect(roots["POST /api/nutrition/analyze request"] == "AnalyzeNutritionRequest")
        #expect(roots["POST /api/users request"] == "CreateUserRequest")
    }

    @Test("same store, same bytes; --check passes on fresh output and fails on edited, missing and stale files")
    func checkBothWays() async throws {
        try await workspace.record(CodegenSamples.interactions)
        let first = try await workspace.run("codegen", "swift", "--out", "Models", "--tests", "Tests")
        #expect(first.status == 0, "\(first)")
        let meal = try Data(contentsOf: URL(fileURLWithPath: workspace.path("Models/Meal.swift")))
        let second = try await workspace.run("codegen", "swift", "--out", "Models", "--tests", "Tests")
        #expect(second.status == 0)
        #expect(second.stdout.contains("0 written, 10 unchanged, 0 removed"), "\(second)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: workspace.path("Models/Meal.swift"))) == meal)

        let clean = try await workspace.run("codegen", "swift", "--out", "Models", "--tests", "Tests", "--check")
        #expect(clean.status == 0, "\(clean)")

        try workspace.write(String(decoding: meal, as: UTF8.self) + "// edited\n", to: "Models/Meal.swift")
        try FileManager.default.removeItem(atPath: workspace.path("Models/Tag.swift"))
        try workspace.write(SwiftModelGenerator.marker + " from an older recording\nstruct Gone {}\n", to: "Models/Gone.swift")
        try workspace.write("struct HandWritten {}\n", to: "Models/HandWritten.swift")
        let dirty = try await workspace.run("codegen", "swift", "--out", "Models", "--check")
        #expect(dirty.status == 1, "\(dirty)")
        #expect(
            dirty.stdoutLines.filter { !$0.hasPrefix("3 types") } == [
                "changed  Meal  (Models/Meal.swift)",
                "missing  Tag  (Models/Tag.swift)",
                "stale    Gone  (Models/Gone.swift)",
            ])

        let repaired = try await workspace.run("codegen", "swift", "--out", "Models")
        #expect(repaired.status == 0)
        #expect(repaired.stdout.contains("removed   Models/Gone.swift"))
        #expect(workspace.fileExists("Models/HandWritten.swift"), "files without the marker are never touched")
        #expect(try await workspace.run("codegen", "swift", "--out", "Models", "--check").status == 0)
    }

    @Test("--tests writes a Swift Testing suite that decodes each endpoint's bodies with its type")
    func testsSuite() async throws {
        try await workspace.record(CodegenSamples.interactions)
        let result = try await workspace.run("codegen", "swift", "--out", "Models", "--tests", "Tests", "--module", "Models")
        #expect(result.status == 0, "\(result)")
        let suite = try String(contentsOfFile: workspace.path("Tests/RecordedModelDecodingTests.swift"), encoding: .utf8)
        #expect(suite.contains("@testable import Models"))
        #expect(suite.contains("import Testing"))
        #expect(suite.contains(#"try await Self.bodies("GET /api/meals/{id}", .response)"#))
        #expect(suite.contains("JSONCoding.decode(Meal.self, from: body)"))
        #expect(suite.contains("JSONCoding.decode(LogMealsRequest.self, from: body)"))
        #expect(suite.contains(#"?? "\#(workspace.storePath)""#) || suite.contains(#"?? "cassettes.db""#))
        // The helper the suite calls reads the same bodies the generator saw.
        let bodies = try await RecordedBodies.load(storePath: workspace.storePath, cassette: "dev", endpoint: "GET /api/meals/{id}", role: .response)
        #expect(bodies.count == 3)
    }

    @Test("the --tests suite type-checks with the models against the built WellPlateNetworking and Swift Testing")
    func testsSuiteTypeChecks() async throws {
        try await workspace.record(CodegenSamples.interactions)
        let result = try await workspace.run("codegen", "swift", "--out", "Models", "--tests", "Tests")
        #expect(result.status == 0, "\(result)")
        let root = Self.sampleStore.deletingLastPathComponent()
        let modules = try cassetteExecutable().deletingLastPathComponent().appendingPathComponent("Modules").path
        let sources = try
            (FileManager.default.contentsOfDirectory(atPath: workspace.path("Models")).map { "Models/" + $0 } + ["Tests/RecordedModelDecodingTests.swift"])
            .sorted()
        let check = try await ExternalTool.run(
            "swiftc",
            [
                "-typecheck", "-swift-version", "6", "-module-name", "GeneratedSuite", "-I", modules,
                "-Xcc", "-fmodule-map-file=" + root.appendingPathComponent("Sources/CCurl/module.modulemap").path,
                "-Xcc", "-fmodule-map-file=" + root.appendingPathComponent("Sources/CSQLite/module.modulemap").path,
            ] + sources, cwd: workspace.directory)
        #expect(check.status == 0, "\(check)")
    }

    @Test("usage errors exit 2")
    func usageErrors() async throws {
        try await workspace.record(CodegenSamples.interactions)
        #expect(try await workspace.run("codegen", "swift").status == 2)
        #expect(try await workspace.run("codegen", "swift", "--out", "").status == 2)
        #expect(try await workspace.run("codegen", "swift", "--out", "M", "--module", "Models").status == 2)
        #expect(try await workspace.run("codegen", "swift", "--out", "M", "--db", "missing.db").status == 2)
    }
}
