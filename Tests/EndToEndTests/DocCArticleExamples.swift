import Foundation
import WellPlateNetworking

/// The code of the DocC article "Getting started" (Sources/WellPlateNetworking/WellPlateNetworking.docc),
/// compiled with the suite; `DocCArticleTests` checks that the article shows exactly these lines.
/// Type-checked only: running it needs the network or files of the reader's own.
enum GettingStartedArticle {
    struct User: Codable, Sendable {
        let id: Int
        let name: String
    }

    func loadUsers(base: URL) async throws -> [User] {
        let client: any APIClientProtocol = APIClient(config: try AppConfig.load())
        return try await client.get(url: base.appending(path: "api/users"), responseType: [User].self)
    }

    func recordUsers(base: URL) async throws -> [User] {
        let store = try await CassetteStore.open(path: "cassettes.db", access: .readWrite)
        let recording = try await RecordingTransport.open(store: store, cassette: "dev", mode: .missing, upstream: TransportChoice.defaultShared)
        let users = try await APIClient(transport: recording).get(url: base.appending(path: "api/users"), responseType: [User].self)
        try await store.close()
        return users
    }

    func replayedUsers(base: URL) async throws -> [User] {
        let replay = try await ReplayAPIClient.open(path: "cassettes.db", cassette: "dev")
        return try await replay.get(url: base.appending(path: "api/users"), responseType: [User].self)
    }

    func mockedUser() async throws -> User {
        let mock = try MockAPIClient(fixturesDirectory: URL(fileURLWithPath: "Fixtures"))
        try mock.stub(.get, "/api/users/{id}", status: 404)
        return try await mock.get(url: URL(string: "https://api.example.com/api/users/1")!, responseType: User.self)
    }
}
