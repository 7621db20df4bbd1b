import Foundation
import NIOHTTP1

/// `POST /api/session`: signs in and hands out credentials the way real APIs do, in a cookie the
/// server sets and in JSON fields (`access_token`, `refresh_token`); each call a fresh pair. The
/// client then sends them back (in `/api/me`'s bearer header, or wherever it likes through
/// `/api/echo`), so recording shows whether secrets first seen in a response stay out of the store.
struct SessionResource {
    var routes: [Route] {
        [
            Route(.POST, "/api/session") { _ throws(APIFailure) in
                let access = Self.token("at")
                let refresh = Self.token("rt")
                let session = Self.token("sid")
                var headers = HTTPHeaders()
                headers.add(name: "Set-Cookie", value: "session=\(session); Path=/; HttpOnly; SameSite=Lax")
                return .json(
                    ["access_token": .string(access), "refresh_token": .string(refresh), "token_type": "Bearer", "expires_in": 3600],
                    status: .created, headers: headers)
            }
        ]
    }

    /// A token as APIs issue them: a prefix, then 32 random hex digits.
    private static func token(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}
