import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Secrets are replaced before anything is written, yet a request that carried one still matches
/// on replay. The proof reads the raw bytes of the store's files, not the store's API.
@Suite("Redaction on the way into the store")
final class RedactionTests {
    let directory: TemporaryDirectory
    /// The defaults plus one configured name of each kind.
    let redactor = Redactor(extraHeaderNames: ["X-Session-Secret"], extraQueryParameters: ["session"], extraJSONFields: ["pin"])

    init() throws {
        directory = try TemporaryDirectory(prefix: "redaction")
    }

    var store: String { directory.path() }

    /// A distinct secret per place, long enough that finding one by chance is impossible.
    static func secret(_ place: String, _ variant: String = "a") -> String {
        "sekret-\(place)-\(variant)-7f3c9e"
    }

    static let secretHeaders = [
        "Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "Api-Key", "apikey", "X-Auth-Token", "X-Session-Secret",
    ]
    static let secretQueryParameters = ["api_key", "apikey", "access_token", "token", "key", "signature", "password", "session"]

    static func headers(_ variant: String) -> HTTPFields {
        var fields = HTTPFields()
        for name in secretHeaders {
            fields[HTTPField.Name(name)!] = secret(name, variant)
        }
        fields[HTTPField.Name("X-Visible")!] = "visible"
        return fields
    }

    static func query(_ variant: String) -> String {
        "?" + secretQueryParameters.map { "\($0)=\(secret($0, variant))" }.joined(separator: "&") + "&visible=1"
    }

    static func jsonBody(_ variant: String) -> Data {
        Data(
            #"{"name":"Rosalind Franklin","email":"rf@example.com","password":"\#(secret("password-field", variant))","profile":{"pin":"\#(secret("pin", variant))"}}"#
                .utf8)
    }

    /// Sends a GET with every secret header and query parameter, and a POST with secret JSON fields.
    func sendSecrets(_ transport: any HTTPTransport, _ base: URL, variant: String) async throws -> [TransportResponse] {
        var jsonHeaders = HTTPFields()
        jsonHeaders[.contentType] = "application/json"
        return [
            try await transport.send(.get, base, "/api/health" + Self.query(variant), headers: Self.headers(variant)),
            try await transport.send(.post, base, "/api/users", headers: jsonHeaders, body: Self.jsonBody(variant)),
        ]
    }

    /// Every secret of `variant` that occurs in any file of the directory, as "secret in file".
    func leaks(_ variant: String) throws -> [String] {
        let secrets =
            Self.secretHeaders.map { Self.secret($0, variant) }
            + Self.secretQueryParameters.map { Self.secret($0, variant) }
            + [
                Self.secret("password-field", variant), Self.secret("pin", variant), Self.secret("set-cookie", variant),
                Self.secret("access-token-field", variant),
            ]
        var found: [String] = []
        for name in try directory.fileNames() {
            let bytes = try #require(directory.bytes(name))
            for secret in secrets where bytes.range(of: Data(secret.utf8)) != nil {
                found.append("\(secret) in \(name)")
            }
        }
        return found
    }

    /// How often the placeholder occurs across the directory's files.
    func placeholderCount() throws -> Int {
        let placeholder = Data(Redactor.placeholder.utf8)
        var count = 0
        for name in try directory.fileNames() {
            var rest = try #require(directory.bytes(name))[...]
            while let range = rest.range(of: placeholder) {
                count += 1
                rest = rest[range.upperBound...]
            }
        }
        return count
    }

    @Test func noSecretReachesTheStoreFilesBeforeOrAfterClosing() async throws {
        try await withSampleAPI { base in
            try await withRecordingTransport(path: store, mode: .missing, redactor: redactor) { transport in
                let responses = try await sendSecrets(transport, base, variant: "a")
                #expect(responses.map(\.statusCode) == [200, 201])
                #expect(try directory.fileNames().contains("cassettes.db-wal"))
                #expect(try leaks("a") == [])
            }
        }
        var cookieHeaders = HTTPFields()
        cookieHeaders[.setCookie] = "session=\(Self.secret("set-cookie"))"
        cookieHeaders[.contentType] = "application/json"
        let login = FixedUpstream(
            response: TransportResponse(
                statusCode: 200, headerFields: cookieHeaders,
                body: Data(#"{"access_token":"\#(Self.secret("access-token-field"))","expires_in":3600}"#.utf8)
            ))
        try await withRecordingTransport(path: store, cassette: "login", mode: .missing, redactor: redactor, upstream: login) { transport in
            let live = try await transport.send(.post, URL(string: "http://127.0.0.1:1")!, "/api/login")
            #expect(live.headerFields[.setCookie] == "session=\(Self.secret("set-cookie"))", "the caller still gets the live response")
            #expect(try leaks("a") == [])
        }
        #expect(try leaks("a") == [])
        #expect(try placeholderCount() >= Self.secretHeaders.count + Self.secretQueryParameters.count + 4)
    }

    @Test func storedRowsShowThePlaceholderWhereEachSecretWas() async throws {
        try await withSampleAPI { base in
            try await withRecordingTransport(path: store, mode: .missing, redactor: redactor) { transport in
                _ = try await sendSecrets(transport, base, variant: "a")
            }
        }
        let rows = try await storedInteractions(store)
        let get = try #require(rows.first { $0.method == .get })
        for name in Self.secretHeaders {
            #expect(get.requestHeaders[HTTPField.Name(name)!] == Redactor.placeholder, "header \(name)")
        }
        #expect(get.requestHeaders[HTTPField.Name("X-Visible")!] == "visible")
        for name in Self.secretQueryParameters {
            #expect(get.url.contains("\(name)=\(Redactor.placeholder)"), "query parameter \(name)")
            #expect(get.key.contains("\(name)=\(Redactor.placeholder)"), "query parameter \(name)")
        }
        #expect(get.url.contains("visible=1"))
        let post = try #require(rows.first { $0.method == .post })
        let body = try #require(post.requestBody.flatMap { try JSONSerialization.jsonObject(with: $0) as? [String: Any] })
        #expect(body["password"] as? String == Redactor.placeholder)
        #expect((body["profile"] as? [String: Any])?["pin"] as? String == Redactor.placeholder)
        #expect(body["name"] as? String == "Rosalind Franklin")
    }

    @Test func aRecordedRequestMatchesTheSameRequestCarryingAnotherSecret() async throws {
        let live = try await withSampleAPI { base in
            try await withRecordingTransport(path: store, mode: .missing, redactor: redactor) { transport in
                try await sendSecrets(transport, base, variant: "a")
            }
        }
        let reader = try await CassetteStore.open(path: store, access: .readOnly)
        let session = try await CassetteSession.open(store: reader, options: CassetteSession.Options(cassette: "dev", mode: .replayOnly, redactor: redactor))
        let replayed = try await sendSecrets(ReplayTransport(session: session), URL(string: "http://127.0.0.1:1")!, variant: "b")
        #expect(replayed.map(\.statusCode) == [200, 201])
        #expect(replayed.map(\.body) == live.map(\.body))
        #expect(session.statistics.replayed == 2)
    }

    @Test func cassetteMissDescriptionsNameNoSecret() async throws {
        try await withSampleAPI { base in
            try await withRecordingTransport(path: store, mode: .missing, redactor: redactor) { transport in
                _ = try await sendSecrets(transport, base, variant: "a")
            }
        }
        let reader = try await CassetteStore.open(path: store, access: .readOnly)
        let session = try await CassetteSession.open(store: reader, options: CassetteSession.Options(cassette: "dev", mode: .replayOnly, redactor: redactor))
        let replay = ReplayTransport(session: session)
        let base = URL(string: "http://127.0.0.1:1")!
        var jsonHeaders = HTTPFields()
        jsonHeaders[.contentType] = "application/json"
        let otherBody = Data(#"{"name":"R. Franklin","email":"rf@example.com","password":"\#(Self.secret("password-field", "b"))"}"#.utf8)
        let misses = [
            try await #require(throws: CassetteMiss.self) {
                try await replay.send(.get, base, "/api/health" + Self.query("b") + "&extra=1", headers: Self.headers("b"))
            },
            try await #require(throws: CassetteMiss.self) {
                try await replay.send(.post, base, "/api/users?token=\(Self.secret("token", "b"))", headers: jsonHeaders, body: otherBody)
            },
        ]
        for miss in misses {
            #expect(!miss.nearest.isEmpty)
            for variant in ["a", "b"] {
                for name in Self.secretQueryParameters + Self.secretHeaders + ["password-field", "pin"] {
                    #expect(!miss.description.contains(Self.secret(name, variant)), "\(name) in \(miss.description)")
                }
            }
        }
        #expect(misses[0].description.contains("api_key=\(Redactor.placeholder)"))
        #expect(misses[0].description.contains("query parameter extra not recorded"))
        #expect(misses[1].description.contains("body differs"))
    }

    @Test func aServerRepeatingASecretDoesNotCarryItIntoTheStore() async throws {
        try await withSampleAPI { base in
            try await withRecordingTransport(path: store, mode: .missing, redactor: redactor) { transport in
                // /api/echo repeats headers, query and body in its JSON answer.
                var headers = Self.headers("a")
                headers[.contentType] = "application/json"
                let live = try await transport.send(.post, base, "/api/echo" + Self.query("a"), headers: headers, body: Self.jsonBody("a"))
                #expect(String(decoding: live.body, as: UTF8.self).contains(Self.secret("Authorization")), "the caller still gets the live answer")
            }
        }
        #expect(try leaks("a") == [])
        let echo = try #require(try await storedInteractions(store).first)
        #expect(echo.responseHeaders[.contentLength] == String(echo.responseBody.count), "Content-Length describes the scrubbed body")
        #expect(try JSONValue(parsing: echo.responseBody)["method"] == "POST", "the scrubbed body is still JSON")
    }

    @Test func redactingAResponseFieldKeepsContentLengthTrue() async throws {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.contentLength] = "60"
        let upstream = FixedUpstream(
            response: TransportResponse(statusCode: 200, headerFields: fields, body: Data(#"{"access_token":"abcdefghijklmnopqrstuvwxyz0123456789"}"#.utf8)))
        try await withRecordingTransport(path: store, mode: .missing, redactor: redactor, upstream: upstream) { transport in
            _ = try await transport.send(.get, URL(string: "http://127.0.0.1:1")!, "/token")
        }
        let row = try #require(try await storedInteractions(store).first)
        #expect(row.responseBody == Data(#"{"access_token":"REDACTED"}"#.utf8))
        #expect(row.responseHeaders[.contentLength] == String(row.responseBody.count))
    }
}
