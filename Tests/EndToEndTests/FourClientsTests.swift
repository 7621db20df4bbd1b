import CassetteTesting
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// One consumer, four clients: the same `NutritionRepository` code runs against the live sample
/// API, a replay of a recorded session, a mock over the fixtures `cassette export` harvested from
/// that recording, and the clients `APIClientFactory` builds for replay and mock configurations.
/// Every one of them must give the consumer the same values.
@Suite("One consumer, four clients")
final class FourClientsTests {
    let workspace: CLIWorkspace
    static let cassette = "dev"

    init() throws {
        workspace = try CLIWorkspace()
    }

    var fixturesDirectory: URL { workspace.directory.appendingPathComponent("Fixtures", isDirectory: true) }

    /// Everything the consumer saw in one session.
    struct Session: Equatable, Sendable {
        var analysis: NutritionalInfo
        var history: [HistoryEntry]
        var users: [User]
        var user: User
        var created: User
    }

    /// Each endpoint is called once (and with one answer), as a mock serves one fixture per
    /// endpoint; the listing comes before the user is created so that it is the same everywhere.
    static func runSession(_ repository: any NutritionRepositoryProtocol) async throws -> Session {
        let analysis = try await repository.analyzeFood(food: "banana", grams: 120)
        let history = try await repository.getFoodHistory()
        let users = try await repository.listUsers()
        let user = try await repository.user(id: 2)
        let created = try await repository.createUser(NewUser(name: "Katherine Johnson", email: "katherine@example.com", role: "member"))
        try await repository.deleteUser(id: 3)
        return Session(analysis: analysis, history: history, users: users, user: user, created: created)
    }

    /// Runs the session through a recording client against a fresh sample API; returns what the
    /// consumer saw and the base URL it was recorded from (the sample API is stopped afterwards).
    func recordSession() async throws -> (Session, URL) {
        try await withSampleAPI { baseURL in
            let store = try await CassetteStore.open(path: workspace.storePath, access: .readWrite)
            let recorder = try await RecordingTransport.open(store: store, cassette: Self.cassette, mode: .all, upstream: try CurlTransport())
            let client = APIClient(transport: recorder, configuration: APIClient.Configuration())
            let session = try await Self.runSession(NutritionRepository(apiClient: client, baseURL: baseURL))
            try await store.close()
            return (session, baseURL)
        }
    }

    func export() async throws -> CommandResult {
        try await workspace.run("export", "--fixtures", "Fixtures", "--cassette", Self.cassette)
    }

    @Test func theSameRepositoryGivesTheSameResultsOverEveryClient() async throws {
        let (recorded, recordedBaseURL) = try await recordSession()
        #expect(recorded.analysis == NutritionalInfo(food: "banana", grams: 120, calories: 107, protein: 1.3, carbs: 27.4, fat: 0.4, fiber: 3.1))
        #expect(recorded.users.map(\.id) == [1, 2, 3])
        #expect(recorded.created.id == 4)

        // 1. Live: a fresh sample API (state starts from the seed again), the plain client.
        let live = try await withSampleAPI { baseURL in
            try await Self.runSession(NutritionRepository(apiClient: try TestClients.live(), baseURL: baseURL))
        }
        #expect(live == recorded)

        // 2. Replay: no server is running any more. Keys ignore the host, so any base URL with
        // the recorded path prefix will do.
        let replay = try await ReplayAPIClient.open(path: workspace.storePath, cassette: Self.cassette)
        let replayed = try await Self.runSession(NutritionRepository(apiClient: replay, baseURL: URL(string: "http://replay.invalid")!))
        #expect(replayed == recorded)

        // 3. Mock over the fixtures the real `cassette export` wrote.
        let exported = try await export()
        #expect(exported.status == 0, "\(exported)")
        let mock = try MockAPIClient(fixturesDirectory: fixturesDirectory, delay: .zero)
        let mocked = try await Self.runSession(NutritionRepository(apiClient: mock, baseURL: recordedBaseURL))
        #expect(mocked == recorded)
        #expect(mock.calls.count == 6)

        // 4. Whatever the factory builds from the app's configuration, in replay and mock mode.
        for mode in [ClientMode.replay, .mock] {
            let config = AppConfig(
                environment: .development, mode: mode, mockResponseDelay: 0, baseURLOverride: recordedBaseURL,
                cassettePath: workspace.storePath, cassetteName: Self.cassette, fixturesDirectory: fixturesDirectory.path
            )
            let client = try await APIClientFactory.make(config: config)
            #expect(try await Self.runSession(NutritionRepository(apiClient: client, config: config)) == recorded, "mode \(mode.rawValue)")
        }
    }

    @Test func exportListsTheSessionsFixturesAndSkipsTheVoidDelete() async throws {
        _ = try await recordSession()
        let result = try await export()
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdoutLines == [
                "created  mock_api_nutrition_analyze_post.json  (POST /api/nutrition/analyze, from 1 recording)",
                "created  mock_api_nutrition_history_get.json  (GET /api/nutrition/history, from 1 recording)",
                "created  mock_api_users_get.json  (GET /api/users, from 1 recording)",
                "created  mock_api_users_post.json  (POST /api/users, from 1 recording)",
                "created  mock_api_users_id_get.json  (GET /api/users/{id}, from 1 recording)",
                "skipped  DELETE /api/users/{id}  (status 204 with an empty body: MockAPIClient answers void requests without a fixture)",
                "created  registry.json  (5 routes)",
                "Exported 5 fixtures from cassette dev (6 recordings) to Fixtures: 5 created; 1 endpoint skipped.",
            ])
    }

    @Test func aRequestTheSessionNeverMadeMissesOnReplay() async throws {
        _ = try await recordSession()
        let replay = try await ReplayAPIClient.open(path: workspace.storePath, cassette: Self.cassette)
        await #expect(throws: CassetteMiss.self) {
            _ = try await NutritionRepository(apiClient: replay, baseURL: URL(string: "http://replay.invalid")!).user(id: 1)
        }
    }
}
