import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Asks the sample API directly (never through a cassette) what reached it, so a test can tell a
/// forwarded request from a replayed one.
package struct UpstreamProbe {
    package let base: URL
    private let transport: any HTTPTransport

    package init(base: URL) throws {
        self.base = base
        transport = try TransportChoice.default.transport()
    }

    /// How many requests `/api/flaky` has received for `key`.
    package func flakyHits(_ key: String) async throws -> Int {
        let response = try await transport.send(.get, base, "/api/flaky/count?key=\(key)")
        return try JSONDecoder().decode(FlakyResult.self, from: response.body).attempts
    }
}

/// `/api/flaky` that always succeeds and answers with how many requests its `key` has had, so the
/// body says which upstream hit produced it. `key` is a secret query parameter to the `Redactor`
/// (its value is stored as `REDACTED`, and scrubbed wherever it stands as a whole token), so `id`
/// carries the name inside a longer token, `id-NAME`, to keep the request keys of different names apart.
package func flakyPath(_ name: String) -> String {
    "/api/flaky?failures=0&key=\(name)&id=id-\(name)"
}

/// The request key `flakyPath(name)` is stored under.
package func flakyKey(_ name: String) -> String {
    "GET /api/flaky?failures=0&id=id-\(name)&key=REDACTED"
}

extension HTTPTransport {
    package func send(_ method: HTTPMethod, _ base: URL, _ pathAndQuery: String, headers: HTTPFields = [:], body: Data? = nil) async throws -> TransportResponse
    {
        try await send(TransportRequest(method: method, url: base.appending(pathAndQuery: pathAndQuery), headerFields: headers, body: body))
    }

    /// Sends `flakyPath(name)` and returns the upstream attempt number in the answer.
    package func flaky(_ base: URL, _ name: String) async throws -> Int {
        try await send(.get, base, flakyPath(name)).flakyAttempt()
    }
}

extension TransportResponse {
    /// The `attempts` of a `/api/flaky` answer.
    package func flakyAttempt() throws -> Int {
        try JSONDecoder().decode(FlakyResult.self, from: body).attempts
    }
}

extension Interaction {
    /// The `attempts` of a recorded `/api/flaky` answer.
    package func flakyAttempt() throws -> Int {
        try JSONDecoder().decode(FlakyResult.self, from: responseBody).attempts
    }
}
