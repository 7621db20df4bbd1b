import CassetteTesting
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The README's "Testing with cassettes" example, kept identical to the snippet so it cannot drift
// from the API. It replays Tests/__Cassettes__/EndToEndTests.db (the default store of
// this test target), recorded once from the sample API on port 8080; the host is not
// part of a recording's key, so replay needs no server.

@Suite(.cassette)  // every test below gets its own cassette, named "UserAPITests/<function>"
struct UserAPITests {
    let base = URL(string: "http://127.0.0.1:8080")!  // the sample API: swift run sample-api

    @Test func loadsAUser() async throws {
        let user = try await Cassette.current.client.get(url: base.appending(path: "api/users/1"), responseType: User.self)
        #expect(user.name == "Ada Lovelace")
    }

    @Test func loadsAUserThroughURLSession() async throws {
        let (data, response) = try await Cassette.current.urlSession.data(from: base.appending(path: "api/users/1"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try JSONCoding.decode(User.self, from: data).email == "ada@example.com")
    }

    // The contract check: every recorded 2xx answer of the endpoint, in every cassette of the
    // store, must decode as the app's model.
    @Test func everyRecordedUserDecodes() async throws {
        try await Cassette.decodeAll(User.self, endpoint: "GET /api/users/{id}", store: Cassette.current.storePath)
    }
}
