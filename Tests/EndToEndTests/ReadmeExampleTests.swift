import CassetteTesting
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The README's library example, compiled with the suite so it cannot drift from the API, and
/// run against the committed cassettes.db (replay only: no network).
@Suite("README example")
struct ReadmeExampleTests {
    /// Kept identical to the README's snippet, except that it returns what it built.
    static func readmeExample(base: URL, fixtures: URL) async throws -> (any APIClientProtocol, ReplayAPIClient, MockAPIClient) {
        let client: any APIClientProtocol = APIClient(config: try AppConfig.load(from: nil, environmentVariables: [:]))
        _ = { () async throws in
            // Not run: it would need the network.
            let users = try await client.get(url: base.appending(path: "api/users"), responseType: [User].self)
            _ = users
            let store = try await CassetteStore.open(path: "cassettes.db", access: .readWrite)
            let recording = try await RecordingTransport.open(store: store, cassette: "dev", mode: .missing, upstream: CurlTransport.shared)
            _ = APIClient(transport: recording)
            _ = try await APIClientFactory.shared(config: try AppConfig.load())
        }
        let replay = try await ReplayAPIClient.open(path: Self.committedStore, cassette: "dev")
        let mock = try MockAPIClient(fixturesDirectory: fixtures)
        try mock.stub(.get, "/api/users/{id}", status: 404)
        return (client, replay, mock)
    }

    /// The repository root's cassettes.db, found from this file's location.
    static let committedStore = ExternalTool.packageRoot.appendingPathComponent("cassettes.db").path

    @Test func theCommittedCassetteReplaysTheSampleSession() async throws {
        let directory = try TemporaryDirectory(prefix: "readme")
        let (_, replay, mock) = try await Self.readmeExample(
            base: URL(string: "http://127.0.0.1:1")!, fixtures: URL(fileURLWithPath: directory.path()).deletingLastPathComponent())
        // The recording's host does not matter: keys leave it out.
        let base = URL(string: "http://127.0.0.1:1")!
        let user = try await replay.get(url: base.appending(path: "api/users/1"), responseType: User.self)
        #expect(user.name == "Ada Lovelace")
        await #expect(throws: APIError.self) {
            _ = try await replay.get(url: base.appending(path: "api/users/42"), responseType: User.self)
        }
        do {
            _ = try await mock.get(url: base.appending(path: "api/users/7"), responseType: User.self)
            Issue.record("the 404 stub was not used")
        } catch let error as APIError {
            #expect(error.statusCode == 404)
        }
    }
}
