import Foundation
import Synchronization
import WellPlateCore

/// Answers requests from fixture files, or from stubs set up by a test, through the same decoding
/// and error mapping as the live client, and records every call.
///
/// An answer is chosen in this order: a per-endpoint stub (`stub(_:_:…)`, matched with the
/// registry's pattern rules), then the global response (`setupSuccessResponse`,
/// `setupErrorResponse`), then the fixture the registry maps the request to (for a GraphQL
/// request, a route of its operation first), or the default fixture name. Requests for `EmptyResponse`, which `requestVoid`, `deleteVoid` and `putVoid`
/// use, succeed without a fixture unless a stub says otherwise.
///
/// A fixture that does not fit the requested type throws `APIError.decodingError`, as the live
/// client does for a response, wrapping a `MockDataError` that names the file and JSON path. A
/// missing or malformed fixture throws the loader's `MockDataError`.
public final class MockAPIClient: APIClientProtocol {
    struct State {
        var calls: [MockCall] = []
        var stubs = RouteTable<MockStub>()
        var globalStub: MockStub?
    }

    /// Maps requests to fixture names.
    public let registry: MockResponseRegistry
    /// Its `registry` is this client's, so a missing fixture lists the routes the client knows.
    public let loader: MockDataLoader
    /// How long every answer waits, to feel like a network; zero in tests.
    public let delay: Duration
    /// What `delay` is waited on; tests pass a clock that records the waits instead.
    let clock: any Clock<Duration>
    let state = Mutex(State())

    /// A client answering from `registry` and `loader`, waiting `delay` before every answer.
    public convenience init(registry: MockResponseRegistry = MockResponseRegistry(), loader: MockDataLoader = MockDataLoader(), delay: Duration = .zero) {
        self.init(registry: registry, loader: loader, delay: delay, clock: ContinuousClock())
    }

    init(registry: MockResponseRegistry = MockResponseRegistry(), loader: MockDataLoader = MockDataLoader(), delay: Duration, clock: any Clock<Duration>) {
        var loader = loader
        loader.registry = registry
        self.registry = registry
        self.loader = loader
        self.delay = delay
        self.clock = clock
    }

    /// Fixtures from `directory`, routes from its `registry.json` when there is one.
    /// - Throws: `MockRegistryError` for a malformed `registry.json`.
    public convenience init(fixturesDirectory directory: URL, delay: Duration = .zero) throws(MockRegistryError) {
        let registry = try MockResponseRegistry.load(fixturesDirectory: directory)
        self.init(registry: registry, loader: MockDataLoader(directory: directory), delay: delay)
    }

    /// The configuration's fixtures directory (with its `registry.json`) and `mockResponseDelay`.
    /// Without a fixtures directory only stubs and void requests can be answered.
    /// - Throws: `ConfigError` when the fixtures directory does not exist or the delay is out of range,
    ///   `MockRegistryError` for a malformed `registry.json`.
    public convenience init(config: AppConfig) throws {
        guard let delay = Seconds(config.mockResponseDelay, allowsZero: true)?.duration else {
            throw ConfigError(
                source: "configuration", key: "mockResponseDelay", problem: "\(config.mockResponseDelay) is out of range",
                accepted: Seconds.acceptedRange(allowsZero: true))
        }
        guard let path = config.fixturesDirectory else {
            self.init(delay: delay)
            return
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ConfigError(
                source: "configuration", key: "fixturesDirectory",
                problem: "\"\(path)\" is not a directory; create it or point fixturesDirectory at the folder holding the fixture .json files")
        }
        try self.init(fixturesDirectory: URL(fileURLWithPath: path, isDirectory: true), delay: delay)
    }

    /// Records the call, then answers from a stub or a fixture, decoded as the live client decodes a response.
    public func request<T: Decodable>(url: URL, method: HTTPMethod, headers: [String: String]?, body: Data?, responseType: T.Type) async throws -> T {
        let call = MockCall(method: method, url: url, headers: headers ?? [:], body: body, timestamp: Date())
        let path = RequestPath(url: url)
        let stub = state.withLock { state -> MockStub? in
            state.calls.append(call)
            return state.stubs.match(path, method: method)?.entry.value ?? state.globalStub
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw APIError.invalidURL
        }
        if delay > .zero {
            try await clock.sleep(for: delay)
        } else {
            try Task.checkCancellation()
        }
        if let stub {
            return try stub.answer(T.self)
        }
        if T.self == EmptyResponse.self {
            return try ResponseDecoding.decode(T.self, from: TransportResponse(statusCode: 204))
        }
        return try answerFromFixture(T.self, call: call, path: path)
    }

    private func answerFromFixture<T: Decodable>(_ type: T.Type, call: MockCall, path: RequestPath) throws -> T {
        let method = call.method
        // The body takes part only for the routes of GraphQL operations (`MockResponseRegistry`).
        let route = registry.match(url: call.url, method: method, headers: call.headers, body: call.body)
        let name = route?.fixture ?? MockResponseRegistry.defaultFixtureName(for: path, method: method)
        let request = ["\(method.rawValue) \(path)", route?.route.operation].compactMap { $0 }.joined(separator: " ")
        let data: Data
        do {
            data = try loader.data(for: name)
        } catch {
            var error = error
            error.request = request
            throw error
        }
        do {
            return try ResponseDecoding.decode(type, from: TransportResponse(statusCode: 200, body: data))
        } catch APIError.decodingError(let underlying) {
            var mismatch = MockDataLoader.mismatch(APIError.decodingError(underlying), fixture: name, file: loader.url(for: name)?.path)
            mismatch.request = request
            throw APIError.decodingError(mismatch)
        }
    }
}
