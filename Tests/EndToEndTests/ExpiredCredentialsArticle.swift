import Foundation
import WellPlateNetworking

/// The code of the DocC article "Expired credentials and error keys"
/// (Sources/WellPlateNetworking/WellPlateNetworking.docc/ExpiredCredentials.md), compiled with the
/// suite and run by `CredentialRefreshRecordingTests`; `DocCArticleTests` checks that the article
/// shows exactly these lines.
struct ExpiredCredentialsArticle {
    actor AuthSession {
        struct Tokens: Decodable {
            let access_token: String
        }

        private var accessToken: String
        private let refreshToken: String
        private let refreshURL: URL
        private let client: any APIClientProtocol

        init(accessToken: String, refreshToken: String, refreshURL: URL, client: any APIClientProtocol) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.refreshURL = refreshURL
            self.client = client
        }

        func headers() -> [String: String] {
            ["Authorization": "Bearer \(accessToken)"]
        }

        func refresh() async throws -> Bool {
            let body = try client.encodeBody(["refresh_token": refreshToken])
            let tokens = try await client.post(url: refreshURL, body: body, responseType: Tokens.self)
            accessToken = tokens.access_token
            return true
        }
    }

    func makeClient(session: AuthSession, signOut: @escaping @Sendable () async -> Void) -> APIClient {
        var configuration = APIClient.Configuration()
        configuration.authHeaderProvider = { await session.headers() }
        configuration.refreshCredentials = { try await session.refresh() }
        configuration.onUnauthorized = signOut
        return APIClient(configuration: configuration)
    }

    func listenForSignOut(_ signOut: @escaping @Sendable () -> Void) -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: .userUnauthorized, object: nil, queue: nil) { _ in signOut() }
    }

    func replayClient(path: String, refreshURL: URL) async throws -> ReplayAPIClient {
        let plain = try await ReplayAPIClient.open(path: path, cassette: "dev")
        let session = AuthSession(accessToken: "expired", refreshToken: "rt_1", refreshURL: refreshURL, client: plain)
        var configuration = ReplayAPIClient.defaultConfiguration
        configuration.authHeaderProvider = { await session.headers() }
        configuration.refreshCredentials = { try await session.refresh() }
        return ReplayAPIClient(session: plain.session, configuration: configuration)
    }

    func message(for error: APIError) -> String {
        NSLocalizedString(error.localizedKey, comment: "")
    }
}
