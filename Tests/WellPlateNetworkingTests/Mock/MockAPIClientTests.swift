import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("MockAPIClient")
struct MockAPIClientTests {
    private static let base = URL(string: "https://dev-api.wellplate.com")!
    private static let user = #"{"id": 7, "name": "Ada", "email": "ada@example.com", "role": "admin", "createdAt": "2026-01-31T12:00:00Z"}"#
    private static let registry = #"{"version": 1, "routes": [{"method": "GET", "path": "/api/users/{id}", "fixture": "user_detail"}]}"#

    private func url(_ pathAndQuery: String) -> URL {
        Self.base.appending(pathAndQuery: pathAndQuery)
    }

    private struct Boom: Error, Equatable {
        let code: Int
    }

    /// Always answers `response`, so the live client's handling can be compared with the mock's.
    private struct CannedTransport: HTTPTransport {
        let response: TransportResponse
        func send(_ request: TransportRequest) async throws -> TransportResponse { response }
    }

    // MARK: Fixtures

    @Test func registeredRoutesAnswerFromTheirFixture() async throws {
        try await withFixturesDirectory(["user_detail.json": Self.user, MockResponseRegistry.fileName: Self.registry]) { directory throws in
            let client = try MockAPIClient(fixturesDirectory: directory)
            let user = try await client.get(url: url("/api/users/7"), responseType: User.self)
            #expect(user.name == "Ada")
            #expect(user.createdAt == JSONCoding.parseISO8601("2026-01-31T12:00:00Z"))
        }
    }

    @Test func unmappedRequestsUseTheDefaultFixtureName() async throws {
        let health = #"{"status": "ok", "version": "1.0", "timestamp": "2026-01-31T12:00:00Z"}"#
        try await withFixturesDirectory(["mock_api_health_get.json": health]) { directory throws in
            let client = try MockAPIClient(fixturesDirectory: directory)
            #expect(try await client.get(url: url("/api/health?verbose=1"), responseType: Health.self).status == "ok")
        }
    }

    @Test func aMissingFixtureThrowsTheLoadersErrorWithTheRequest() async throws {
        try await withFixturesDirectory([MockResponseRegistry.fileName: Self.registry]) { directory throws in
            let client = try MockAPIClient(fixturesDirectory: directory)
            let error = await #expect(throws: MockDataError.self) {
                try await client.get(url: self.url("/api/users/7"), responseType: User.self)
            }
            #expect(error?.kind == .notFound)
            let message = error?.description ?? ""
            #expect(message.hasPrefix("GET /api/users/7: "))
            #expect(message.contains(directory.appendingPathComponent("user_detail.json").standardizedFileURL.path))
            #expect(message.contains("GET /api/users/{id} -> user_detail"), "\(message)")
        }
    }

    @Test func aFixtureOfTheWrongShapeIsADecodingErrorNamingTheFile() async throws {
        try await withFixturesDirectory(["user_detail.json": #"{"id": "seven"}"#, MockResponseRegistry.fileName: Self.registry]) { directory throws in
            let client = try MockAPIClient(fixturesDirectory: directory)
            let error = await #expect(throws: APIError.self) {
                try await client.get(url: self.url("/api/users/7"), responseType: User.self)
            }
            #expect(error?.category == .decoding)
            guard case .decodingError(let underlying as MockDataError)? = error else {
                Issue.record("expected a MockDataError inside, got \(String(describing: error))")
                return
            }
            #expect(underlying.jsonPath == "$.id")
            #expect(underlying.decodingError?.path == "$.id")
            #expect(error?.localizedDescription.contains("user_detail.json") == true)
        }
    }

    // MARK: Void and empty responses

    @Test func voidRequestsSucceedWithoutFixtures() async throws {
        let client = MockAPIClient()
        try await client.requestVoid(url: url("/api/users/1"), method: .post, headers: nil, body: nil)
        try await client.deleteVoid(url: url("/api/users/1"))
        try await client.putVoid(url: url("/api/users/1"), body: Data("{}".utf8))
        #expect(try await client.request(url: url("/api/ping"), method: .head, headers: nil, body: nil, responseType: EmptyResponse.self) == EmptyResponse())
        #expect(client.calls.map(\.method) == [.post, .delete, .put, .head])
    }

    @Test func aStubStillDecidesAVoidRequest() async throws {
        let client = MockAPIClient()
        try client.stub(.delete, "/api/users/{id}", status: 409, body: Data(#"{"message": "user has meals"}"#.utf8))
        let error = await #expect(throws: APIError.self) { try await client.deleteVoid(url: self.url("/api/users/1")) }
        #expect(error?.statusCode == 409)
        guard case .serverError(_, let message)? = error else { return }
        #expect(message == "user has meals")
    }

    // MARK: Call recording

    @Test func everyCallIsRecordedWithWhatWasSent() async throws {
        let client = MockAPIClient()
        let before = Date()
        let body = try client.encodeBody(NewUser(name: "Ada", email: "ada@example.com", role: nil))
        try await client.requestVoid(url: url("/api/users"), method: .post, headers: ["Authorization": "Bearer t", "X-Trace": "1"], body: body)
        try await client.deleteVoid(url: url("/api/users/1"))
        try await client.deleteVoid(url: url("/api/users/2?hard=true"))
        try await client.deleteVoid(url: url("/api/meals/2"))

        let calls = client.calls
        #expect(calls.count == 4)
        let post = calls[0]
        #expect(post.method == .post)
        #expect(post.url == url("/api/users"))
        #expect(post.headers == ["Authorization": "Bearer t", "X-Trace": "1"])
        #expect(post.header("authorization") == "Bearer t")
        #expect(post.body == body)
        #expect(try post.decodedBody(as: NewUser.self).name == "Ada")
        #expect(post.timestamp >= before)
        #expect(calls.map(\.timestamp) == calls.map(\.timestamp).sorted())

        #expect(try client.callCount(method: .delete, path: "/api/users/{id}") == 2)
        #expect(try client.callCount(path: "/api/users/{id}") == 2)
        #expect(try client.callCount(method: .get, path: "/api/users/{id}") == 0)
        #expect(try client.callCount(path: "/api/users") == 1)
        #expect(try client.calls(to: "/api/{collection}/2").map(\.path) == ["/api/users/2", "/api/meals/2"])
        #expect(throws: MockRegistryError.self) { try client.callCount(path: "api/users") }
    }

    @Test func concurrentCallsAreAllRecorded() async throws {
        let client = MockAPIClient()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask { try await client.deleteVoid(url: self.url("/api/users/\(index)")) }
            }
            try await group.waitForAll()
        }
        #expect(try client.callCount(method: .delete, path: "/api/users/{id}") == 100)
        #expect(Set(client.calls.map(\.path)).count == 100)
    }

    @Test func resetForgetsCallsAndStubs() async throws {
        let client = MockAPIClient()
        try client.stub(.get, "/api/health", error: Boom(code: 1))
        client.setupErrorResponse(statusCode: 500)
        _ = try? await client.get(url: url("/api/health"), responseType: Health.self)
        client.reset()
        #expect(client.calls.isEmpty)
        try await client.requestVoid(url: url("/api/health"), method: .get)
    }

    // MARK: Stubs and errors

    @Test(arguments: [400, 401, 403, 404, 409, 418, 429, 500, 502, 503])
    func failingStatusesBecomeTheLiveClientsErrors(status: Int) async throws {
        let body = Data(#"{"error": {"message": "nope \#(status)"}}"#.utf8)
        let mock = MockAPIClient()
        try mock.stub(.get, "/api/users/{id}", status: status, body: body)
        let mockError = await #expect(throws: APIError.self) {
            try await mock.get(url: self.url("/api/users/1"), responseType: User.self)
        }

        var canned = TransportResponse(statusCode: status, body: body)
        canned.headerFields[.contentType] = "application/json"
        var configuration = APIClient.Configuration()
        configuration.retryPolicy = .never
        let live = APIClient(transport: CannedTransport(response: canned), configuration: configuration)
        let liveError = await #expect(throws: APIError.self) {
            try await live.get(url: self.url("/api/users/1"), responseType: User.self)
        }

        #expect(mockError?.category == APIError.Category(statusCode: status))
        #expect(mockError?.category == liveError?.category)
        #expect(mockError?.statusCode == status)
        #expect(mockError?.localizedDescription == liveError?.localizedDescription)
        guard case .serverError(_, let message)? = mockError else { return }
        #expect(message == "nope \(status)")
    }

    @Test func aNoContentStubForAValueIsNoDataAsLive() async throws {
        let client = MockAPIClient()
        try client.stub(.get, "/api/health", status: 204)
        let error = await #expect(throws: APIError.self) { try await client.get(url: self.url("/api/health"), responseType: Health.self) }
        #expect(error?.category == .noData)
    }

    @Test func stubbedValuesAreEncodedWithTheClientsDates() async throws {
        let client = MockAPIClient()
        let stamp = try #require(JSONCoding.parseISO8601("2026-02-01T08:30:00Z"))
        let sent = User(id: 1, name: "Grace", email: "g@example.com", role: "user", createdAt: stamp, avatarURL: nil)
        try client.stub(.get, "/api/users/{id}", with: sent)
        #expect(try await client.get(url: url("/api/users/1"), responseType: User.self) == sent)
        try client.stub(.post, "/api/users", with: sent, status: 201)
        #expect(try await client.post(url: url("/api/users"), responseType: User.self) == sent)
    }

    @Test func thrownErrorsPassThroughUnchanged() async throws {
        let client = MockAPIClient()
        try client.stub(.get, "/api/users/{id}", error: Boom(code: 42))
        let error = await #expect(throws: Boom.self) { try await client.get(url: self.url("/api/users/1"), responseType: User.self) }
        #expect(error == Boom(code: 42))

        client.setupErrorResponse(error: APIError.networkError(TransportError(.timeout, "took too long")))
        let global = await #expect(throws: APIError.self) { try await client.get(url: self.url("/api/health"), responseType: Health.self) }
        #expect(global?.category == .timeout)
    }

    @Test func aPerEndpointStubBeatsTheGlobalResponseWhichBeatsFixtures() async throws {
        let health = #"{"status": "fixture", "version": "1", "timestamp": "2026-01-31T12:00:00Z"}"#
        try await withFixturesDirectory(["mock_api_health_get.json": health]) { directory throws in
            let client = try MockAPIClient(fixturesDirectory: directory)
            #expect(try await client.get(url: url("/api/health"), responseType: Health.self).status == "fixture")

            let global = Health(status: "global", version: "1", timestamp: Date(timeIntervalSince1970: 0))
            try client.setupSuccessResponse(with: global)
            #expect(try await client.get(url: url("/api/health"), responseType: Health.self).status == "global")
            #expect(try await client.get(url: url("/api/anything/else"), responseType: Health.self).status == "global")

            try client.stub(.get, "/api/health", with: Health(status: "stub", version: "1", timestamp: Date(timeIntervalSince1970: 0)))
            #expect(try await client.get(url: url("/api/health"), responseType: Health.self).status == "stub")
            #expect(try await client.get(url: url("/api/anything/else"), responseType: Health.self).status == "global")

            client.setupErrorResponse(statusCode: 503, message: "down")
            #expect(try await client.get(url: url("/api/health"), responseType: Health.self).status == "stub")
            let error = await #expect(throws: APIError.self) { try await client.get(url: self.url("/api/other"), responseType: Health.self) }
            #expect(error?.category == .serverError)

            client.removeStubs()
            #expect(try await client.get(url: url("/api/health"), responseType: Health.self).status == "fixture")
        }
    }

    @Test func stubsFollowThePatternPrecedence() async throws {
        let client = MockAPIClient()
        try client.stub(.get, "/api/{collection}/{id}", error: Boom(code: 2))
        try client.stub(.get, "/api/users/{id}", error: Boom(code: 1))
        try client.stub(.get, "/api/users/me", error: Boom(code: 0))
        for (path, code) in [("/api/users/me", 0), ("/api/users/5", 1), ("/api/meals/5", 2)] {
            let error = await #expect(throws: Boom.self) { try await client.get(url: self.url(path), responseType: User.self) }
            #expect(error?.code == code)
        }
        #expect(throws: MockRegistryError.self) { try client.stub(.get, "/api/{", error: Boom(code: 3)) }
    }

    @Test func invalidURLsAreRejectedAsByTheLiveClient() async throws {
        let client = MockAPIClient()
        let error = await #expect(throws: APIError.self) {
            try await client.requestVoid(url: URL(string: "ftp://example.com/x")!, method: .get)
        }
        #expect(error?.category == .invalidURL)
    }

    // MARK: Delay and configuration

    @Test func theConfiguredDelayIsHonoured() async throws {
        let clock = TestClock()
        let client = MockAPIClient(delay: .milliseconds(60), clock: clock)
        try await client.requestVoid(url: url("/api/health"), method: .get)
        try await client.requestVoid(url: url("/api/health"), method: .get)
        #expect(clock.sleeps == [.milliseconds(60), .milliseconds(60)])
    }

    @Test func aCancelledCallStopsWaiting() async throws {
        let client = MockAPIClient(delay: .seconds(30))
        let task = Task { try await client.requestVoid(url: self.url("/api/health"), method: .get) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func theConfigurationSuppliesDelayFixturesAndRegistry() async throws {
        try await withFixturesDirectory(["user_detail.json": Self.user, MockResponseRegistry.fileName: Self.registry]) { directory throws in
            let client = try MockAPIClient(config: AppConfig(mode: .mock, mockResponseDelay: 0.25, fixturesDirectory: directory.path))
            #expect(client.delay == .milliseconds(250))
            #expect(client.registry.registrations.map(\.fixture) == ["user_detail"])
            #expect(client.loader.directory?.standardizedFileURL == directory.standardizedFileURL)
        }
        let error = #expect(throws: ConfigError.self) {
            try MockAPIClient(config: AppConfig(mode: .mock, fixturesDirectory: "/nonexistent-\(UUID().uuidString)"))
        }
        #expect(error?.key == "fixturesDirectory")
        #expect(throws: ConfigError.self) { try MockAPIClient(config: AppConfig(mode: .mock, mockResponseDelay: -1)) }
    }
}
