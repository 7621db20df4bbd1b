import Foundation
import HTTPTypes
import WellPlateCore

/// The recordings the web UI's tests serve (the browser tests in `CassetteUITests`, the UI's
/// endpoints in-process in `CassetteProxyTests`).
package enum UIRecordings {
    /// 25 JSON items, a user (holding a token), an HTML page whose body tries to run script, a PNG
    /// and a GraphQL query.
    package static func interactions() -> [Interaction] {
        var recordings = (1...25).map { number in
            Interaction(
                cassette: "dev", method: .get, url: "http://api.example.test/items/\(number)", key: "GET /items/\(number)", statusCode: 200,
                responseHeaders: [.contentType: "application/json"],
                responseBody: Data(#"{"id":\#(number),"name":"item \#(number)","tags":["a","b"],"price":{"amount":\#(number * 100),"currency":"EUR"}}"#.utf8))
        }
        recordings.append(
            Interaction(
                cassette: "dev", method: .get, url: "http://api.example.test/users/me", key: "GET /users/me", statusCode: 200,
                responseHeaders: [.contentType: "application/json"], responseBody: Data(#"{"name":"Ada","token":"\#(secret)"}"#.utf8)))
        recordings.append(
            Interaction(
                cassette: "dev", method: .get, url: "http://api.example.test/page", key: "GET /page", statusCode: 200,
                responseHeaders: [.contentType: "text/html"],
                responseBody: Data(#"<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">"#.utf8)))
        recordings.append(
            Interaction(
                cassette: "dev", method: .get, url: "http://api.example.test/logo.png", key: "GET /logo.png", statusCode: 200,
                responseHeaders: [.contentType: "image/png"], responseBody: Self.png))
        // A GraphQL query, keyed as the proxy keys it: the operation filter finds it.
        let query = Data(#"{"query":"query GetUser { user { id name } }","operationName":"GetUser"}"#.utf8)
        let headers: HTTPFields = [.contentType: "application/json"]
        recordings.append(
            Interaction(
                cassette: "dev", method: .post, url: "http://api.example.test/graphql",
                key: RequestKey(method: .post, target: "/graphql", headerFields: headers, body: query).rawValue, requestHeaders: headers, requestBody: query,
                statusCode: 200, responseHeaders: [.contentType: "application/json"], responseBody: Data(#"{"data":{"user":{"id":1,"name":"Ada"}}}"#.utf8)))
        return recordings
    }

    /// A GitHub token's shape, which `cassette audit` finds and the Drift view must mask.
    package static let secret = "ghp_R8x2Kq9LmT4vZ7nW1cY5bH3jD6fG0sPaQeUo"

    /// A 1x1 PNG.
    package static let png = Data(
        base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!
}
