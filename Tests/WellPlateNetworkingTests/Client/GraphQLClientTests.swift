import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The library's GraphQL helper against a real GraphQL server (ariadne over uvicorn), recorded
/// through `RecordingTransport`, then replayed by `ReplayAPIClient` with the server stopped: the
/// same operations written otherwise hit, `errors` become `GraphQLResponseError`, a changed
/// variable misses and says why.
@Suite("GraphQL helper, live and replayed")
final class GraphQLClientTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "graphql-client")
    }

    static let getUser = "query GetUser($id: ID!) { user(id: $id) { id name } }"
    static let getUserReformatted = """
        # the same operation, laid out by hand
        query GetUser(
          $id: ID!
        ) {
          user(id: $id) { id, name }
        }
        """
    static let rename = "mutation RenameUser($id: ID!, $name: String!) { renameUser(id: $id, name: $name) { id name } }"

    struct User: Decodable, Sendable, Equatable {
        let id: String
        let name: String
    }

    struct UserData: Decodable, Sendable, Equatable {
        let user: User?
    }

    struct RenameData: Decodable, Sendable, Equatable {
        let renameUser: User?
    }

    struct BrokenData: Decodable, Sendable {
        let broken: String?
    }

    struct Rename: Encodable, Sendable {
        let id: String
        let name: String
    }

    /// The answers every client must give, live or replayed.
    private func expectTheAnswers(of client: some APIClientProtocol, at url: URL, document: String) async throws {
        let ada = try await client.graphQL(url: url, query: document, operationName: "GetUser", variables: ["id": "1"], dataType: UserData.self)
        #expect(ada == UserData(user: User(id: "1", name: "Ada")))
        let renamed = try await client.graphQL(
            url: url, query: Self.rename, operationName: "RenameUser", variables: Rename(id: "2", name: "G. Hopper"), dataType: RenameData.self)
        #expect(renamed.renameUser?.name == "G. Hopper")
        do {
            _ = try await client.graphQL(url: url, query: "query Broken { broken }", operationName: "Broken", dataType: BrokenData.self)
            Issue.record("an answer with errors was decoded as data")
        } catch let error as GraphQLResponseError {
            #expect(error.errors.map(\.message) == ["the broken field always fails"])
            #expect(error.errors.first?.path == ["broken"])
            #expect(error.operationName == "Broken")
        }
    }

    @Test func operationsRecordedLiveReplayOfflineThroughTheHelper() async throws {
        let store = directory.path()
        let url = try await GraphQLPeers.withUpstream { base in
            let url = base.appending(path: "graphql")
            try await withRecordingTransport(path: store, mode: .missing) { transport in
                try await self.expectTheAnswers(of: APIClient(transport: transport), at: url, document: Self.getUser)
            }
            return url
        }

        // The server is stopped: every answer comes from the cassette.
        let replay = try await ReplayAPIClient.open(path: store)
        try await expectTheAnswers(of: replay, at: url, document: Self.getUserReformatted)
        do {
            _ = try await replay.graphQL(url: url, query: Self.getUser, operationName: "GetUser", variables: ["id": "3"], dataType: UserData.self)
            Issue.record("a changed variable was answered")
        } catch let miss as CassetteMiss {
            #expect(miss.description.contains(#"GetUser: variables differ at $.id: recorded "1", got "3""#), "\(miss)")
        }
    }
}
