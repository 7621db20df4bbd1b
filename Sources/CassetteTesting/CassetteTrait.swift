import Foundation
import Testing
import WellPlateCore
import WellPlateNetworking

/// Runs a test (or every test of a suite) inside its own cassette: `Cassette.current` then gives
/// the test a client and a `URLSession` that answer from recordings and, in a recording mode,
/// forward through libcurl and record. Write it as `.cassette` or `.cassette("name", ...)`.
///
/// On a suite the trait is recursive: every test function (every case of a parameterized one)
/// gets a cassette of its own, so parallel tests never share a session.
public struct CassetteTrait: TestTrait, SuiteTrait, TestScoping {
    /// The cassette's name; `nil` names it after the test (see `CassetteSettings.cassetteName`).
    public var name: String?
    /// The store file; `nil` uses `CASSETTE_DB` or the default beside the test sources.
    public var store: String?
    /// The record mode; `nil` uses `CASSETTE_RECORD`, else `none` under CI and `once` elsewhere.
    public var mode: RecordMode?
    /// Whether recordings the test never used are only a warning (`true`) or a failure.
    public var allowUnused: Bool

    /// A trait with the given settings; each `nil` falls back to the environment or the defaults.
    public init(name: String? = nil, store: String? = nil, mode: RecordMode? = nil, allowUnused: Bool = true) {
        self.name = name
        self.store = store
        self.mode = mode
        self.allowUnused = allowUnused
    }

    /// Always `true`: on a suite, every test in it gets its own cassette.
    public var isRecursive: Bool { true }

    // A suite's own scope is not a test: only test functions (and their cases) get a cassette.
    /// The trait itself for a test function or one of its cases; `nil` for a suite.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> CassetteTrait? {
        test.isSuite || testCase == nil ? nil : self
    }

    /// Opens the test's cassette, runs the test with it as `Cassette.current`, then reports misses and unused recordings and closes it.
    /// A setting or store that cannot be used is recorded as an issue, and the test does not run.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let settings: CassetteSettings
        do {
            settings = try CassetteSettings(trait: self, test: test, testCase: testCase, environment: ProcessInfo.processInfo.environment)
        } catch {
            Issue.record(Comment(rawValue: "\(error)"), sourceLocation: test.sourceLocation)
            return
        }
        try await CassetteScope.run(settings, sourceLocation: test.sourceLocation, function)
    }
}

extension Trait where Self == CassetteTrait {
    /// A cassette named after the test, in the default store, in the environment's record mode.
    public static var cassette: CassetteTrait { CassetteTrait() }

    /// A cassette with an explicit `name`, `store` file, record `mode`; with `allowUnused: false`
    /// a recording the test never used fails it.
    public static func cassette(_ name: String? = nil, store: String? = nil, mode: RecordMode? = nil, allowUnused: Bool = true) -> CassetteTrait {
        CassetteTrait(name: name, store: store, mode: mode, allowUnused: allowUnused)
    }
}
