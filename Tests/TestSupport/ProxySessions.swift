// Sessions are reached through the proxy tests' libcurl client (`ProxyClient`).
#if canImport(CCurl)
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// A session opened on a running proxy (`POST /__cassette/sessions`), as a test drives it with
/// plain HTTP: its id, its own address, and its endpoints on the proxy's main port.
package struct OpenedSession: Sendable {
    package init(proxy: any RunningProxy, id: String, baseURL: URL) {
        self.proxy = proxy
        self.id = id
        self.baseURL = baseURL
    }

    package let proxy: any RunningProxy
    package let id: String
    /// `http://HOST:PORT` as the proxy answered it.
    package let baseURL: URL

    package var port: Int { baseURL.port ?? 0 }

    /// A request to the session's own port.
    package func get(_ pathAndQuery: String, headers: HTTPFields = [:]) async throws -> TransportResponse {
        try await send(.get, pathAndQuery, headers: headers)
    }

    package func send(_ method: HTTPMethod, _ pathAndQuery: String, headers: HTTPFields = [:], body: Data? = nil) async throws -> TransportResponse {
        try await ProxyClient.send(method, URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")!, headers: headers, body: body)
    }

    /// The same request on the proxy's main port, routed by `X-Cassette-Session`.
    package func getThroughMainPort(_ pathAndQuery: String, headers: HTTPFields = [:]) async throws -> TransportResponse {
        var headers = headers
        headers[HTTPField.Name("X-Cassette-Session")!] = id
        return try await proxy.get(pathAndQuery, headers: headers)
    }

    /// `GET /__cassette/sessions/ID/requests` with `query` (`?method=GET`), parsed.
    package func journal(_ query: String = "") async throws -> [String: Any] {
        let response = try await proxy.get("/__cassette/sessions/\(id)/requests\(query)")
        guard response.statusCode == 200 else { throw UnexpectedBody(description: "journal: \(response.statusCode) \(response.bodyText)") }
        return try response.jsonObject()
    }

    /// The journal's entries.
    package func requests(_ query: String = "") async throws -> [[String: Any]] {
        try await journal(query)["requests"] as? [[String: Any]] ?? []
    }

    package func reset() async throws -> TransportResponse {
        try await proxy.send(.post, "/__cassette/sessions/\(id)/reset")
    }

    /// `DELETE /__cassette/sessions/ID` (`?strict=true` with `strict`).
    package func end(strict: Bool = false) async throws -> TransportResponse {
        try await proxy.send(.delete, "/__cassette/sessions/\(id)" + (strict ? "?strict=true" : ""))
    }
}

extension RunningProxy {
    /// `POST /__cassette/sessions` with `body`, as sent.
    package func postSession(_ body: String) async throws -> TransportResponse {
        try await send(.post, "/__cassette/sessions", json: body)
    }

    /// Opens a session on `cassette` (in `mode`, or the proxy's own); throws unless it answers 201.
    package func openSession(_ cassette: String, mode: String? = nil) async throws -> OpenedSession {
        let body = mode.map { #"{"cassette": "\#(cassette)", "mode": "\#($0)"}"# } ?? #"{"cassette": "\#(cassette)"}"#
        let response = try await postSession(body)
        guard response.statusCode == 201 else {
            throw UnexpectedBody(description: "POST /__cassette/sessions \(body): \(response.statusCode) \(response.bodyText)")
        }
        let created = try response.jsonObject()
        guard let id = created["id"] as? String, let base = created["baseURL"] as? String, let url = URL(string: base) else {
            throw UnexpectedBody(description: "POST /__cassette/sessions answered \(response.bodyText)")
        }
        return OpenedSession(proxy: self, id: id, baseURL: url)
    }

    /// `GET /__cassette/sessions`'s `sessions`.
    package func liveSessions() async throws -> [[String: Any]] {
        try await get("/__cassette/sessions").jsonObject()["sessions"] as? [[String: Any]] ?? []
    }
}
#endif
