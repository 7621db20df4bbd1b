import NIOHTTP1

/// `/api/me`: the signed-in user, behind a bearer token.
struct ProfileResource {
    /// Tokens with this value are treated as expired, so clients can exercise their 401 handling.
    static let expiredToken = "expired"

    var routes: [Route] {
        [
            Route(.GET, "/api/me") { request throws(APIFailure) in
                let token = try Self.bearerToken(request)
                guard token != Self.expiredToken else {
                    throw APIFailure(
                        status: .unauthorized,
                        code: "token_expired",
                        message: "The bearer token has expired; obtain a new one",
                        headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#]
                    )
                }
                return .json(["id": 1, "name": "Ada Lovelace", "email": "ada@example.com", "plan": "pro"])
            }
        ]
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
