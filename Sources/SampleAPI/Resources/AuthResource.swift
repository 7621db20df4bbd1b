import Foundation
import NIOHTTP1

/// `POST /api/auth/refresh`: trades a refresh token for a fresh access token, the endpoint an app's
/// `refreshCredentials` calls after `/api/me` answered 401 for the `expired` token. The refresh
/// token `revoked` is refused with 401 (the user must sign in again); `stale` is accepted but
/// handed the access token `expired`, which `/api/me` still refuses (a refresh that does not help).
/// `GET /api/auth/counts` reports how many `/api/me` requests, 401s from it and refreshes arrived.
struct AuthResource {
    static let revokedRefreshToken = "revoked"
    static let staleRefreshToken = "stale"

    let counter: AuthCounter

    var routes: [Route] {
        let counter = self.counter
        return [
            Route(.POST, "/api/auth/refresh") { request throws(APIFailure) in
                let refreshToken = try JSONObjectBody(request).requiredString("refresh_token")
                counter.record { $0.refreshes += 1 }
                guard refreshToken != Self.revokedRefreshToken else {
                    throw APIFailure(status: .unauthorized, code: "refresh_token_revoked", message: "The refresh token was revoked; sign in again")
                }
                let access = refreshToken == Self.staleRefreshToken ? ProfileResource.expiredToken : Self.accessToken()
                return .json(["access_token": .string(access), "token_type": "Bearer", "expires_in": 3600])
            },
            Route(.GET, "/api/auth/counts") { _ in
                let counts = counter.current
                return .json([
                    "profile_requests": .integer(counts.profileRequests), "rejected": .integer(counts.rejected),
                    "refreshes": .integer(counts.refreshes),
                ])
            },
        ]
    }

    /// An access token as `POST /api/session` issues them.
    private static func accessToken() -> String {
        "at_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}
