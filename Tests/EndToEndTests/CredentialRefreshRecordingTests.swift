import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The article's client records a 401, its refresh and the request sent again through
/// `cassette record` in front of the sample API, and `ReplayAPIClient` replays the three in order
/// with the sample API and the proxy stopped.
@Suite("A refreshed 401 recorded by cassette record, replayed offline")
final class CredentialRefreshRecordingTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    struct Profile: Codable, Equatable {
        let id: Int
        let name: String
    }

    struct Counts: Decodable, Equatable {
        let profile_requests: Int
        let rejected: Int
        let refreshes: Int
    }

    @Test func theRecorded401RefreshAndResendReplayInOrderOffline() async throws {
        let store = workspace.storePath
        let (proxyURL, live) = try await withSampleAPI { api in
            let recorded = try await withRecorder(upstream: api, store: store) { proxy in
                let refreshURL = proxy.url.appending(path: "api/auth/refresh")
                let session = ExpiredCredentialsArticle.AuthSession(accessToken: "expired", refreshToken: "rt_1", refreshURL: refreshURL, client: APIClient())
                let client = ExpiredCredentialsArticle().makeClient(session: session) { Issue.record("the refresh worked; the user must stay signed in") }
                let profile = try await client.get(url: proxy.url.appending(path: "api/me"), responseType: Profile.self)
                return (proxy.url, profile)
            }
            let counts = try await APIClient().get(url: api.appending(path: "api/auth/counts"), responseType: Counts.self)
            #expect(counts == Counts(profile_requests: 2, rejected: 1, refreshes: 1))
            return recorded
        }
        #expect(live == Profile(id: 1, name: "Ada Lovelace"))

        // In the order they were stored (the row ids), which is the order they happened in.
        let stored = try await StoreFiles.interactions(at: store).sorted { ($0.id ?? 0) < ($1.id ?? 0) }
        #expect(
            stored.map { "\($0.method.rawValue) \(URL(string: $0.url)?.path ?? $0.url) \($0.statusCode)" } == [
                "GET /api/me 401", "POST /api/auth/refresh 200", "GET /api/me 200",
            ])

        let stopped = try await #require(throws: TransportError.self) { try await APIClient().transport.send(.get, proxyURL, "/api/me") }
        #expect(stopped.kind == .cannotConnect)

        let replay = try await ExpiredCredentialsArticle().replayClient(path: store, refreshURL: proxyURL.appending(path: "api/auth/refresh"))
        let replayed = try await replay.get(url: proxyURL.appending(path: "api/me"), responseType: Profile.self)
        #expect(replayed == live)
        #expect(replay.session.statistics.replayed == 3)
        #expect(replay.session.statistics.missed == 0)
    }
}
