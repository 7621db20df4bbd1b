import Foundation
import Testing
import WellPlateCore
import WellPlateNetworking

/// Which cassette, store file and record mode one test runs with: the trait's arguments first,
/// then the environment, then the defaults.
///
/// - Cassette name: the trait's name, else the test's identity, its suites and function joined by
///   `/` (`UserTests/loadsProfile()`), and for a case of a parameterized test its arguments in
///   brackets (`UserTests/loads(id:)[7]`), so that every case records and replays on its own.
/// - Store: the trait's `store:` (a relative path is taken from the test target's directory),
///   else `CASSETTE_DB` (relative to the working directory), else
///   `Tests/__Cassettes__/<TestTarget>.db`, where `<TestTarget>` is the folder directly under
///   `Tests/` that holds the test's source file. Outside the target's folder, so SwiftPM does
///   not ask for it to be declared as a resource; without a `Tests/` folder above the source
///   file, `__Cassettes__/cassettes.db` beside it.
/// - Mode: the trait's `mode:`, else `CASSETTE_RECORD` (`none`, `once`, `missing`, `all`), else
///   `none` when `CI` is set (to anything but `0` or `false`) and `once` otherwise.
public struct CassetteSettings: Sendable, Equatable {
    /// The cassette's name inside the store.
    public var cassette: String
    /// The store file's path.
    public var storePath: String
    /// The record mode.
    public var mode: RecordMode
    /// Whether recordings the test never used are only a warning (`true`) or a failure.
    public var allowUnused: Bool

    /// Settings given outright, bypassing the trait and environment rules.
    public init(cassette: String, storePath: String, mode: RecordMode, allowUnused: Bool = true) {
        self.cassette = cassette
        self.storePath = storePath
        self.mode = mode
        self.allowUnused = allowUnused
    }

    /// How the cassette is served in `mode`: a test's misses are failures, never forwarded.
    var policy: ServingPolicy { ServingPolicy(mode: mode) }

    init(trait: CassetteTrait, test: Test, testCase: Test.Case?, environment: [String: String]) throws(CassetteTestingError) {
        let testFile = test.sourceLocation.filePath
        self.init(
            cassette: trait.name ?? Self.cassetteName(nameComponents: test.id.nameComponents, arguments: testCase.flatMap(Self.argumentDescriptions)),
            storePath: Self.storePath(trait: trait.store, environment: environment, testFile: testFile),
            mode: try Self.mode(trait: trait.mode, environment: environment),
            allowUnused: trait.allowUnused
        )
    }

    // MARK: Rules

    /// `Suite/function(label:)`, plus `[arguments]` for a case of a parameterized test.
    public static func cassetteName(nameComponents: [String], arguments: [String]?) -> String {
        let name = nameComponents.joined(separator: "/")
        guard let arguments, !arguments.isEmpty else { return name }
        return name + "[" + arguments.joined(separator: ", ") + "]"
    }

    /// The store file, by the rules in the type's description: the trait's `store`, else `CASSETTE_DB`, else the default under `Tests/__Cassettes__`.
    public static func storePath(trait: String?, environment: [String: String], testFile: String) -> String {
        let targetDirectory = testTargetDirectory(of: testFile)
        if let trait, !trait.isEmpty {
            return trait.hasPrefix("/") ? trait : targetDirectory.appendingPathComponent(trait).standardizedFileURL.path
        }
        if let database = environment["CASSETTE_DB"], !database.isEmpty {
            return database.hasPrefix("/") ? database : URL(fileURLWithPath: database).standardizedFileURL.path
        }
        let folder = targetDirectory.deletingLastPathComponent()
        if folder.lastPathComponent == "Tests" {
            return folder.appendingPathComponent("__Cassettes__").appendingPathComponent(targetDirectory.lastPathComponent + ".db").path
        }
        return targetDirectory.appendingPathComponent("__Cassettes__").appendingPathComponent(CassetteStore.defaultPath).path
    }

    /// The record mode, by the rules in the type's description; throws when `CASSETTE_RECORD` is not a record mode.
    public static func mode(trait: RecordMode?, environment: [String: String]) throws(CassetteTestingError) -> RecordMode {
        if let trait { return trait }
        if let text = environment["CASSETTE_RECORD"], !text.isEmpty {
            guard let mode = RecordMode(rawValue: text.lowercased()) else {
                throw CassetteTestingError("CASSETTE_RECORD=\(text) is not a record mode; use none, once, missing or all")
            }
            return mode
        }
        return isCI(environment) ? .replayOnly : .once
    }

    /// CI services set `CI` (`true`, `1`, a name); a developer can clear it with `CI=0` or `CI=false`.
    public static func isCI(_ environment: [String: String]) -> Bool {
        guard let value = environment["CI"]?.lowercased(), !value.isEmpty else { return false }
        return value != "0" && value != "false"
    }

    /// The folder directly under the nearest `Tests/` above `file`, else `file`'s own folder.
    public static func testTargetDirectory(of file: String) -> URL {
        let fileURL = URL(fileURLWithPath: file).standardizedFileURL
        var directory = fileURL.deletingLastPathComponent()
        while directory.path != "/" {
            let parent = directory.deletingLastPathComponent()
            if parent.lastPathComponent == "Tests" { return directory }
            if parent.path == directory.path { break }
            directory = parent
        }
        return fileURL.deletingLastPathComponent()
    }

    /// The arguments of a parameterized test's case, described as Swift Testing prints them.
    /// `Test.Case` does not publish its arguments (only tools get them, through SPI), so they are
    /// read by reflection; when that finds nothing every case shares the test's cassette (still
    /// correct, only less separated).
    static func argumentDescriptions(_ testCase: Test.Case) -> [String]? {
        guard testCase.isParameterized, let arguments = child(labeled: "arguments", in: testCase, depth: 3) else { return nil }
        let descriptions = Mirror(reflecting: arguments).children.compactMap { argument -> String? in
            guard let value = Mirror(reflecting: argument.value).children.first(where: { $0.label == "value" })?.value else { return nil }
            return String(describingForTest: value)
        }
        return descriptions.isEmpty ? nil : descriptions
    }

    /// The first property called `label` within `depth` levels (the arguments sit inside the
    /// case's kind, an enum payload).
    private static func child(labeled label: String, in value: Any, depth: Int) -> Any? {
        guard depth > 0 else { return nil }
        for child in Mirror(reflecting: value).children {
            if child.label == label { return child.value }
            if let found = Self.child(labeled: label, in: child.value, depth: depth - 1) { return found }
        }
        return nil
    }
}
