import Foundation
import Logging
import Synchronization
import WellPlateCore

/// Builds the app's client from an `AppConfig`, and keeps one shared instance.
///
/// The shared client is built once, by the first call to `shared(config:)`; concurrent first
/// callers wait for that one build and get the same instance, and later calls get it whatever
/// configuration they pass (first access wins). Changing the configuration afterwards needs
/// `reset()`, which exists for tests only; an app restarts instead. A build that fails is not
/// cached, so the next call tries again.
///
/// Production always gets the live client, whatever the mode says; `lastDecision` tells why.
///
/// Tests replace the client with `withTestInstance(_:_:)` (scoped to the task and its children,
/// so parallel tests do not see each other's instance) or `setTestInstance(_:)` (process-wide);
/// code that should be replaceable asks `testable(config:)`, while `shared(config:)` always
/// returns the real client, as in the design documents.
public enum APIClientFactory {
    private struct State {
        var build: Task<any APIClientProtocol, any Error>?
        /// Bumped by `reset()`, so a failed build from before a reset cannot clear a newer one.
        var generation = 0
        var testInstance: (any APIClientProtocol)?
        var lastDecision: APIClientDecision?
        /// The decision behind `build`: unlike `lastDecision`, other callers of `make` leave it alone.
        var sharedDecision: APIClientDecision?
    }

    private static let state = Mutex(State())
    private static let logger = Logger(label: "WellPlateNetworking.APIClientFactory")

    @TaskLocal private static var scopedTestInstance: (any APIClientProtocol)?

    // MARK: Building

    /// A new client for `config`, not cached:
    /// - live: `APIClient(config:)` over the configured transport (`AppConfig.transport`);
    /// - mock: `MockAPIClient` over `config.fixturesDirectory` and its `registry.json`;
    /// - replay: `ReplayAPIClient` over `config.cassettePath`, cassette `config.effectiveCassetteName`;
    /// - record: `APIClient` over a `RecordingTransport` into that cassette (mode `missing`).
    /// - Throws: `ConfigError` for a mock mode without a usable fixtures directory, and the
    ///   cassette store's or registry's errors as they are.
    public static func make(config: AppConfig) async throws -> any APIClientProtocol {
        let decision = APIClientDecision(config: config)
        state.withLock { $0.lastDecision = decision }
        if let refusal = decision.refusal {
            logger.warning("\(refusal)")
        } else {
            logger.debug("using the \(decision.mode.rawValue) client for \(config.environment.rawValue)")
        }
        switch decision.mode {
        case .live:
            return APIClient(config: config, transport: try transport(for: config))
        case .mock:
            guard config.fixturesDirectory != nil else {
                throw ConfigError(
                    source: "configuration", key: "fixturesDirectory", problem: "mode is mock but no fixtures directory is set",
                    accepted: "the folder holding the fixture .json files (and registry.json), e.g. \"fixturesDirectory\": \"Fixtures\"")
            }
            return try MockAPIClient(config: config)
        case .replay:
            var configuration = ReplayAPIClient.defaultConfiguration
            configuration.enableLogging = config.enableLogging
            return try await ReplayAPIClient.open(path: config.cassettePath, cassette: config.effectiveCassetteName, configuration: configuration)
        case .record:
            let store = try await CassetteStore.open(path: config.cassettePath, access: .readWrite)
            let transport = try await RecordingTransport.open(
                store: store, cassette: config.effectiveCassetteName, mode: .missing, upstream: try transport(for: config))
            return APIClient(config: config, transport: transport)
        }
    }

    /// The configured transport: the shared one, or one of its own when the configuration has TLS settings.
    private static func transport(for config: AppConfig) throws(TransportError) -> any StreamingHTTPTransport {
        try config.transport.transport(tls: config.tls, proxy: config.proxy)
    }

    // MARK: The shared client

    /// The shared client, built from `config` on first access; later calls ignore `config`.
    public static func shared(config: AppConfig) async throws -> any APIClientProtocol {
        let (build, generation) = state.withLock { state -> (Task<any APIClientProtocol, any Error>, Int) in
            if let build = state.build { return (build, state.generation) }
            let build = Task { try await make(config: config) }
            state.build = build
            state.sharedDecision = APIClientDecision(config: config)
            return (build, state.generation)
        }
        do {
            return try await build.value
        } catch {
            state.withLock { state in
                if state.generation == generation {
                    state.build = nil
                    state.sharedDecision = nil
                }
            }
            throw error
        }
    }

    /// The shared client if it has been built, without building it.
    public static var sharedIfBuilt: (any APIClientProtocol)? {
        get async {
            guard let build = state.withLock({ $0.build }) else { return nil }
            return try? await build.value
        }
    }

    /// The most recent decision of `make(config:)`, whoever called it: with several callers (tests
    /// running in parallel) it may be another caller's. `sharedDecision` is the shared client's.
    public static var lastDecision: APIClientDecision? {
        state.withLock { $0.lastDecision }
    }

    /// The decision the shared client was built by, until `reset()`.
    public static var sharedDecision: APIClientDecision? {
        state.withLock { $0.sharedDecision }
    }

    /// For tests only: forgets the shared client, the process-wide test instance and the last
    /// decision, so the next `shared(config:)` builds again.
    public static func reset() {
        state.withLock { state in
            state.build = nil
            state.generation += 1
            state.testInstance = nil
            state.lastDecision = nil
            state.sharedDecision = nil
        }
    }

    // MARK: Test overrides

    /// The client code under test should use: the scoped test instance, else the process-wide
    /// one, else the shared client.
    public static func testable(config: AppConfig) async throws -> any APIClientProtocol {
        if let instance = scopedTestInstance ?? state.withLock({ $0.testInstance }) {
            return instance
        }
        return try await shared(config: config)
    }

    /// Makes `testable` return `instance` in every task until it is set to `nil`.
    public static func setTestInstance(_ instance: (any APIClientProtocol)?) {
        state.withLock { $0.testInstance = instance }
    }

    /// Runs `body` with `testable` returning `instance` in this task and its child tasks only;
    /// the previous value is back when `body` returns or throws.
    public static func withTestInstance<R>(
        _ instance: any APIClientProtocol,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> R
    ) async rethrows -> R {
        try await $scopedTestInstance.withValue(instance, operation: body, isolation: isolation)
    }
}
