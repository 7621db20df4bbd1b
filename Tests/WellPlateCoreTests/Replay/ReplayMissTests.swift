import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// A request without a recording throws `CassetteMiss`, whose description says what was asked,
/// where it looked, and which recordings came nearest with what differs.
@Suite("Replay misses")
final class ReplayMissTests {
    let directory: TemporaryDirectory
    let base = URL(string: "http://127.0.0.1:8081")!

    init() throws {
        directory = try TemporaryDirectory(prefix: "replay-misses")
    }

    var store: String { directory.path() }

    static let jsonHeaders: HTTPFields = [.contentType: "application/json"]

    /// A cassette `dev` with a user, a history page and an analysis.
    func openClient() async throws -> ReplayAPIClient {
        try await fillStore(
            store,
            with: [
                Recordings.make(.get, "/api/users/1"),
                Recordings.make(.get, "/api/nutrition/history?limit=2", body: Data("[]".utf8)),
                Recordings.make(.post, "/api/nutrition/analyze", requestHeaders: Self.jsonHeaders, requestBody: Data(#"{"food":"apple","grams":200}"#.utf8)),
            ])
        return try await ReplayAPIClient.open(path: store, cassette: "dev")
    }

    func miss(_ client: ReplayAPIClient, _ method: HTTPMethod, _ pathAndQuery: String, body: String? = nil) async throws -> CassetteMiss {
        try await #require(throws: CassetteMiss.self) {
            try await client.requestVoid(url: self.base.appending(pathAndQuery: pathAndQuery), method: method, headers: nil, body: body.map { Data($0.utf8) })
        }
    }

    @Test func aMissNamesTheMethodTheNormalizedKeyTheCassetteAndTheStore() async throws {
        let client = try await openClient()
        let miss = try await miss(client, .get, "/api/users?offset=1&limit=2")
        #expect(miss.method == .get)
        #expect(miss.key == "GET /api/users?limit=2&offset=1")
        #expect(miss.cassette == "dev")
        #expect(miss.description.hasPrefix("No recording of GET /api/users?limit=2&offset=1 in cassette \"dev\" (\(store))"))
        #expect(miss.description.hasSuffix("Record it (record mode `missing`), or let misses through to the upstream."))
        #expect(!miss.description.contains("--"), "the library names no command-line flags")
    }

    @Test func aMissByMethodNamesBothMethods() async throws {
        let miss = try await miss(try await openClient(), .delete, "/api/users/1")
        #expect(miss.description.contains("nearest: GET /api/users/1 (method DELETE vs GET)"))
    }

    @Test func aMissByPathNamesBothPaths() async throws {
        let miss = try await miss(try await openClient(), .get, "/api/users/2")
        #expect(miss.description.contains("nearest: GET /api/users/1 (path /api/users/2 vs /api/users/1)"))
    }

    @Test func aMissByQueryParameterNamesTheParameterAndBothValues() async throws {
        let miss = try await miss(try await openClient(), .get, "/api/nutrition/history?limit=3")
        #expect(miss.description.contains("nearest: GET /api/nutrition/history?limit=2 (query parameter limit: 3 vs 2)"))
    }

    @Test func aMissByBodyNamesTheFirstDifferingField() async throws {
        let miss = try await miss(try await openClient(), .post, "/api/nutrition/analyze", body: #"{"grams":150,"food":"apple"}"#)
        #expect(miss.key.hasPrefix("POST /api/nutrition/analyze body:sha256:"))
        #expect(miss.description.contains("(body differs: $.grams 150 vs 200)"))
    }

    @Test func aMissShowsSecretsOnlyAsThePlaceholder() async throws {
        let secret = "sekret-miss-4b1d"
        let miss = try await miss(try await openClient(), .get, "/api/users/2?api_key=\(secret)")
        #expect(miss.key == "GET /api/users/2?api_key=\(Redactor.placeholder)")
        #expect(miss.description.contains("query parameter api_key not recorded"))
        #expect(!miss.description.contains(secret))
        #expect(!String(describing: miss.nearest).contains(secret))
    }
}
