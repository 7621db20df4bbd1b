import Foundation
import Synchronization
import TestSupport
import WellPlateCore
import WellPlateNetworking

/// The app's side of the sample API's tokens, as an app would keep them: the access token the
/// client sends (`expired` at first) and a refresh through `POST /api/auth/refresh` with the app's
/// refresh token (`revoked` is refused, `stale` is answered with a token that is still expired).
final class SampleAPICredentials: Sendable {
    struct Tokens: Decodable {
        let access_token: String
    }

    let base: URL
    let refreshToken: String
    private let accessToken = Mutex("expired")
    /// Whether the refresh call goes through the client being refreshed, set after the client is made.
    private let refreshClient = Mutex<(any APIClientProtocol)?>(nil)

    /// Holds the first requests' headers until all of them asked, so they are all sent with the
    /// expired token before any answer (and any refresh) can arrive.
    private let gathering: Gathering?

    init(base: URL, refreshToken: String, gatheringFirst requests: Int = 0) {
        self.base = base
        self.refreshToken = refreshToken
        gathering = requests > 0 ? Gathering(requests) : nil
    }

    var currentAccessToken: String { accessToken.withLock { $0 } }

    /// `authHeaderProvider` and `refreshCredentials` for a client of the sample API at `base`.
    func install(in configuration: inout APIClient.Configuration) {
        configuration.authHeaderProvider = { [self] in
            let token = currentAccessToken
            await gathering?.arrive()
            return ["Authorization": "Bearer \(token)"]
        }
        configuration.refreshCredentials = { [self] in try await refresh() }
    }

    /// Sends the refresh call through `client` (the one whose 401 asks for it) from now on.
    func refresh(through client: any APIClientProtocol) {
        refreshClient.withLock { $0 = client }
    }

    private func refresh() async throws -> Bool {
        let through: (any APIClientProtocol)? = refreshClient.withLock { $0 }
        let client = try through ?? TestClients.live()
        let tokens = try await client.post(
            url: base.appending(pathAndQuery: "/api/auth/refresh"), body: Data(#"{"refresh_token":"\#(refreshToken)"}"#.utf8),
            responseType: Tokens.self)
        accessToken.withLock { $0 = tokens.access_token }
        return true
    }
}

/// Lets the first `count` callers through together, the rest at once.
actor Gathering {
    private var remaining: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) {
        remaining = count
    }

    func arrive() async {
        guard remaining > 0 else { return }
        remaining -= 1
        if remaining == 0 {
            for continuation in waiting { continuation.resume() }
            waiting = []
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
    }
}

/// What the sample API counted (`GET /api/auth/counts`).
struct AuthCounts: Decodable, Equatable {
    let profile_requests: Int
    let rejected: Int
    let refreshes: Int

    static func at(_ base: URL) async throws -> AuthCounts {
        try await TestClients.live().get(url: base.appending(pathAndQuery: "/api/auth/counts"), responseType: AuthCounts.self)
    }
}

/// A count that escaping closures can add to.
final class Tally: Sendable {
    private let value = Mutex(0)

    var count: Int { value.withLock { $0 } }

    func add() {
        value.withLock { $0 += 1 }
    }
}

extension APIClient.Configuration {
    /// `onUnauthorized` counts its calls in `tally`.
    mutating func countUnauthorized(in tally: Tally) {
        onUnauthorized = { tally.add() }
    }
}

/// How many `userUnauthorized` notifications `client` posted while `body` ran (other tests' clients
/// post theirs meanwhile, so only this client's count).
func userUnauthorizedNotifications(of client: APIClient, during body: () async throws -> Void) async rethrows -> Int {
    let tally = Tally()
    let token = NotificationCenter.default.addObserver(forName: .userUnauthorized, object: client, queue: nil) { _ in tally.add() }
    defer { NotificationCenter.default.removeObserver(token) }
    try await body()
    return tally.count
}
