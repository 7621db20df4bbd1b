import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The factory's shared client is process-wide state, so these tests run one at a time and each
/// starts from `reset()`.
@Suite("APIClientFactory", .serialized)
struct APIClientFactoryTests {
    private static let base = URL(string: "https://dev-api.wellplate.com")!

    private struct CannedTransport: HTTPTransport {
        let response: TransportResponse
        func send(_ request: TransportRequest) async throws -> TransportResponse { response }
    }

    private func identity(_ client: any APIClientProtocol) -> ObjectIdentifier {
        ObjectIdentifier(client as AnyObject)
    }

    private func mockConfig(_ directory: URL) -> AppConfig {
        AppConfig(environment: .development, mode: .mock, mockResponseDelay: 0, fixturesDirectory: directory.path)
    }

    // MARK: Caching

    @Test func theSharedClientIsBuiltOnceAndFirstAccessWins() async throws {
        APIClientFactory.reset()
        defer { APIClientFactory.reset() }
        try await withFixturesDirectory { directory throws in
            #expect(await APIClientFactory.sharedIfBuilt == nil)
            let first = try await APIClientFactory.shared(config: mockConfig(directory))
            let second = try await APIClientFactory.shared(config: mockConfig(directory))
            let live = try await APIClientFactory.shared(config: AppConfig(mode: .live))
            #expect(first is MockAPIClient)
            #expect(identity(first) == identity(second))
            #expect(identity(first) == identity(live))
            #expect(await APIClientFactory.sharedIfBuilt.map(identity) == identity(first))

            APIClientFactory.reset()
            let rebuilt = try await APIClientFactory.shared(config: AppConfig(mode: .live))
            #expect(rebuilt is APIClient)
        }
    }

    @Test func fiftyConcurrentFirstCallersShareOneInstance() async throws {
        APIClientFactory.reset()
        defer { APIClientFactory.reset() }
        try await withFixturesDirectory { directory throws in
            let config = mockConfig(directory)
            let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<50 {
                    group.addTask { ObjectIdentifier(try await APIClientFactory.shared(config: config) as AnyObject) }
                }
                var seen: Set<ObjectIdentifier> = []
                for try await identity in group { seen.insert(identity) }
                return seen
            }
            #expect(identities.count == 1)
        }
    }

    @Test func aFailedBuildIsNotCached() async throws {
        APIClientFactory.reset()
        defer { APIClientFactory.reset() }
        await #expect(throws: ConfigError.self) {
            try await APIClientFactory.shared(config: AppConfig(mode: .mock, fixturesDirectory: nil))
        }
        #expect(try await APIClientFactory.shared(config: AppConfig(mode: .live)) is APIClient)
    }

    // MARK: Modes

    @Test func liveModeBuildsTheLiveClient() async throws {
        let client = try await APIClientFactory.make(config: AppConfig(environment: .staging, mode: .live, apiTimeout: 12))
        let live = try #require(client as? APIClient)
        #expect(live.configuration.timeout == .seconds(12))
        // `lastDecision` is not checked here: suites running alongside call `make` too.
        let decision = APIClientDecision(config: AppConfig(environment: .staging, mode: .live))
        #expect(decision.mode == .live)
        #expect(decision.refusal == nil)
    }

    @Test func mockModeReadsTheFixturesDirectoryAndItsRegistry() async throws {
        let registry = #"{"version": 1, "routes": [{"method": "GET", "path": "/api/flag", "fixture": "flag"}]}"#
        try await withFixturesDirectory(["flag.json": "true", MockResponseRegistry.fileName: registry]) { directory throws in
            let client = try await APIClientFactory.make(config: mockConfig(directory))
            let mock = try #require(client as? MockAPIClient)
            #expect(mock.delay == .zero)
            #expect(try await client.get(url: Self.base.appending(pathAndQuery: "/api/flag"), responseType: Bool.self))
        }
    }

    @Test func mockModeWithoutAFixturesDirectoryIsAClearError() async throws {
        let error = await #expect(throws: ConfigError.self) {
            try await APIClientFactory.make(config: AppConfig(mode: .mock))
        }
        #expect(error?.key == "fixturesDirectory")
        #expect(error?.description.contains("no fixtures directory is set") == true)
    }

    @Test func mockModeWithABadRegistryNamesTheFile() async throws {
        try await withFixturesDirectory([MockResponseRegistry.fileName: "{"]) { directory throws in
            let error = await #expect(throws: MockRegistryError.self) {
                try await APIClientFactory.make(config: mockConfig(directory))
            }
            #expect(error?.file?.hasSuffix(MockResponseRegistry.fileName) == true)
        }
    }

    @Test func replayModeServesTheConfiguredCassette() async throws {
        try await withFixturesDirectory { directory throws in
            let path = directory.appendingPathComponent("cassettes.db").path
            let store = try await CassetteStore.open(path: path, access: .readWrite)
            let upstream = CannedTransport(response: TransportResponse(statusCode: 200, body: Data(#"{"recorded": true}"#.utf8)))
            let recorder = APIClient(transport: try await RecordingTransport.open(store: store, cassette: "ci", upstream: upstream))
            let recorded = try await recorder.get(url: Self.base.appending(pathAndQuery: "/api/flag"), responseType: [String: Bool].self)
            #expect(recorded == ["recorded": true])
            try await store.close()

            let config = AppConfig(environment: .development, mode: .replay, cassettePath: path, cassetteName: "ci")
            let client = try await APIClientFactory.make(config: config)
            #expect(client is ReplayAPIClient)
            #expect(try await client.get(url: Self.base.appending(pathAndQuery: "/api/flag"), responseType: [String: Bool].self) == ["recorded": true])
        }
    }

    @Test func replayModeWithoutAStoreSaysWhichFile() async throws {
        let path = "/nonexistent-\(UUID().uuidString)/cassettes.db"
        let error = await #expect(throws: CassetteStoreError.self) {
            try await APIClientFactory.make(config: AppConfig(mode: .replay, cassettePath: path))
        }
        #expect(error?.kind == .missingFile)
        #expect(error?.description.contains(path) == true)
    }

    @Test func recordModeRecordsThroughTheLiveClient() async throws {
        try await withFixturesDirectory { directory throws in
            let path = directory.appendingPathComponent("recorded.db").path
            let client = try await APIClientFactory.make(config: AppConfig(environment: .staging, mode: .record, cassettePath: path))
            let live = try #require(client as? APIClient)
            let transport = try #require(live.transport as? RecordingTransport)
            #expect(transport.session.options.cassette == "staging")
            #expect(transport.session.options.mode == .missing)
            #expect(FileManager.default.fileExists(atPath: path))
            try await transport.session.store.close()
        }
    }

    @Test func theLiveClientUsesTheConfiguredTransport() async throws {
        var config = AppConfig(environment: .development, mode: .live)
        config.transport = .urlsession
        let client = try await APIClientFactory.make(config: config)
        #expect((client as? APIClient)?.transport is URLSessionTransport)
        config.transport = .default
        let byDefault = try await APIClientFactory.make(config: config)
        #expect(type(of: try #require((byDefault as? APIClient)?.transport)) == type(of: TransportChoice.defaultShared))
    }

    // MARK: Production

    @Test(arguments: [ClientMode.mock, .replay, .record])
    func productionAlwaysGetsTheLiveClient(mode: ClientMode) async throws {
        APIClientFactory.reset()
        defer { APIClientFactory.reset() }
        let config = AppConfig(environment: .production, mode: mode, fixturesDirectory: "/nonexistent")
        let client = try await APIClientFactory.shared(config: config)
        #expect(client is APIClient)
        #if canImport(CCurl)
        #expect((client as? APIClient)?.transport is CurlTransport)
        #else
        #expect((client as? APIClient)?.transport is URLSessionTransport)
        #endif
        // The shared client's decision: suites running alongside may call `make` meanwhile.
        let decision = try #require(APIClientFactory.sharedDecision)
        #expect(decision.environment == .production)
        #expect(decision.requestedMode == mode)
        #expect(decision.mode == .live)
        #expect(decision.refusal?.contains("production always uses the live client") == true)
        #expect(decision.refusal?.contains("\"\(mode.rawValue)\"") == true)
    }

    // MARK: Test overrides

    @Test func aScopedTestInstanceIsUsedInsideAndRestoredAfter() async throws {
        APIClientFactory.reset()
        defer { APIClientFactory.reset() }
        let config = AppConfig(mode: .live)
        let shared = try await APIClientFactory.shared(config: config)
        let mock = MockAPIClient()

        try await APIClientFactory.withTestInstance(mock) {
            #expect(identity(try await APIClientFactory.testable(config: config)) == identity(mock))
            let child = try await Task { try await APIClientFactory.testable(config: config) }.value
            #expect(identity(child) == identity(mock))
            #expect(identity(try await APIClientFactory.shared(config: config)) == identity(shared))
        }
        #expect(identity(try await APIClientFactory.testable(config: config)) == identity(shared))

        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await APIClientFactory.withTestInstance(mock) { throw Failure() }
        }
        #expect(identity(try await APIClientFactory.testable(config: config)) == identity(shared))
    }

    @Test func aProcessWideTestInstanceIsUsedUntilCleared() async throws {
        APIClientFactory.reset()
        defer { APIClientFactory.reset() }
        let config = AppConfig(mode: .live)
        let mock = MockAPIClient()
        APIClientFactory.setTestInstance(mock)
        #expect(identity(try await APIClientFactory.testable(config: config)) == identity(mock))
        #expect(try await APIClientFactory.shared(config: config) is APIClient)
        APIClientFactory.setTestInstance(nil)
        #expect(try await APIClientFactory.testable(config: config) is APIClient)
    }
}
