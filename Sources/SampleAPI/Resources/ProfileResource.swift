import NIOHTTP1

/// `/api/me`: the signed-in user (`GET`, and `PATCH` with a new `name`), behind a bearer token. Every request and every 401 is counted
/// (`GET /api/auth/counts`).
struct ProfileResource {
    /// Tokens with this value are treated as expired, so clients can exercise their 401 handling
    /// (and refresh them through `POST /api/auth/refresh`).
    static let expiredToken = "expired"

    let counter: AuthCounter

    var routes: [Route] {
        let counter = self.counter
        return [
            Route(.GET, "/api/me") { request throws(APIFailure) in
                try Self.authorize(request, counter)
                return .json(Self.profile(name: "Ada Lovelace"))
            },
            // Not idempotent, so a client's retry policy never repeats it; only a refresh of
            // credentials sends it again.
            Route(.PATCH, "/api/me") { request throws(APIFailure) in
                try Self.authorize(request, counter)
                let name = try JSONObjectBody(request).requiredString("name")
                return .json(Self.profile(name: name))
            },
        ]
    }

    private static func profile(name: String) -> JSONValue {
        ["id": 1, "name": .string(name), "email": "ada@example.com", "plan": "pro"]
    }

    /// Counts the request, and the 401 when its token is missing or expired.
    private static func authorize(_ request: Request, _ counter: AuthCounter) throws(APIFailure) {
        counter.record { $0.profileRequests += 1 }
        let token: String
        do {
            token = try Self.bearerToken(request)
        } catch {
            counter.record { $0.rejected += 1 }
            throw error
        }
        guard token != Self.expiredToken else {
            counter.record { $0.rejected += 1 }
            throw APIFailure(
                status: .unauthorized,
                code: "token_expired",
                message: "The bearer token has expired; obtain a new one",
                headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#]
            )
        }
    }

    private static func bearerToken(_ request: Request) throws(APIFailure) -> String {
        let missing = APIFailure(
            status: .unauthorized,
            code: "unauthorized",
            message: "Send Authorization: Bearer <token>",
            headers: ["WWW-Authenticate": "Bearer"]
        )
        guard let header = request.headers.first(name: "Authorization") else { throw missing }
        let parts = header.trimmingWhitespace.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw missing }
        let token = String(parts[1]).trimmingWhitespace
        guard !token.isEmpty else { throw missing }
        return String(token)
    }
}
