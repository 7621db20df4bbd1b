import CassetteTesting
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `Cassette.decodeAll`: every recorded 2xx body of an endpoint against the app's model type.
@Suite("Contract checks against recordings")
struct ContractCheckTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "contract")
    }

    static let ada = #"{"id":1,"name":"Ada","email":"ada@example.com","role":"admin","createdAt":"2024-01-15T09:30:00Z"}"#
    static let grace =
        #"{"id":2,"name":"Grace","email":"grace@example.com","role":"member","createdAt":"2024-02-01T10:00:00.250Z","avatarURL":"https://example.com/g.png"}"#

    func store(_ interactions: [Interaction]) async throws -> String {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        try await store.record(batch: interactions)
        try await store.close()
        return directory.path()
    }

    @Test func everyRecordedBodyOfTheEndpointDecodes() async throws {
        let path = try await store([
            CassetteFixture.recording(cassette: "a", .get, "/api/users/1", json: Self.ada),
            CassetteFixture.recording(cassette: "b", .get, "/api/users/2", json: Self.grace),
            // Not the endpoint: another method, a longer path, an error answer.
            CassetteFixture.recording(cassette: "a", .delete, "/api/users/1", json: "{}"),
            CassetteFixture.recording(cassette: "a", .get, "/api/users/1/meals", json: "[]"),
            CassetteFixture.recording(cassette: "a", .get, "/api/users/9", status: 404, json: #"{"message":"no"}"#),
        ])
        let users = try await Cassette.decodeAll(User.self, endpoint: "GET /api/users/{id}", store: path)
        #expect(users.map(\.name).sorted() == ["Ada", "Grace"])
        #expect(users.first { $0.id == 2 }?.createdAt == JSONCoding.parseISO8601("2024-02-01T10:00:00.250Z"))
        let onlyA = try await Cassette.decodeAll(User.self, endpoint: "GET /api/users/{id}", store: path, cassette: "a")
        #expect(onlyA.map(\.id) == [1])
    }

    @Test func oneErrorListsEveryRecordingThatFailsWithItsKeyPathAndReason() async throws {
        let path = try await store([
            CassetteFixture.recording(cassette: "a", .get, "/api/users/1", json: Self.ada),
            CassetteFixture.recording(
                cassette: "a", .get, "/api/users/2", json: #"{"id":"two","name":"B","email":"b@x","role":"m","createdAt":"2024-01-01T00:00:00Z"}"#),
            CassetteFixture.recording(cassette: "b", .get, "/api/users/3", json: #"{"id":3,"name":"C","email":"c@x","role":"m","createdAt":"yesterday"}"#),
        ])
        do {
            try await Cassette.decodeAll(User.self, endpoint: "GET /api/users/{id}", store: path)
            Issue.record("recordings that do not decode passed")
        } catch let violation as ContractViolation {
            #expect(violation.failures.map(\.key) == ["GET /api/users/2", "GET /api/users/3"])
            #expect(violation.failures.map(\.path) == ["$.id", "$.createdAt"])
            #expect(violation.failures[1].reason.contains("yesterday"))
            let text = "\(violation)"
            #expect(text.hasPrefix("2 recording(s) of GET /api/users/{id} do not decode as"))
            #expect(text.contains("GET /api/users/2 #0 in cassette \"a\": at $.id:"))
        }
    }

    @Test func anEndpointWithoutRecordingsIsAnError() async throws {
        let path = try await store([CassetteFixture.recording(cassette: "a", .get, "/api/users/1", json: Self.ada)])
        await #expect {
            try await Cassette.decodeAll(User.self, endpoint: "GET /api/people/{id}", store: path)
        } throws: { error in
            "\(error)" == "\(path) has no 2xx recording of GET /api/people/{id}; record one, or correct the endpoint if it was renamed"
        }
        await #expect {
            try await Cassette.decodeAll(User.self, endpoint: "/api/users/{id}", store: path)
        } throws: { error in
            "\(error)".contains("is not \"METHOD /path\"")
        }
    }
}
