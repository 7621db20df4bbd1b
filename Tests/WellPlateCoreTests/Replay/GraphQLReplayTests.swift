import Crypto
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// Replaying GraphQL operations from a store: persisted-query hashes find the recordings made with
/// their document, a recorded PersistedQueryNotFound never wins over a real answer, and cassettes
/// keyed before GraphQL keying are rekeyed once.
@Suite("GraphQL replay")
final class GraphQLReplayTests {
    let directory: TemporaryDirectory
    var store: String { directory.path() }
    static let document = "query GetUser($id: ID!) { user(id: $id) { id name } }"
    static var hash: String { SHA256.hash(data: Array(document.utf8)).hex }
    static let notFound = #"{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}"#

    init() throws {
        directory = try TemporaryDirectory(prefix: "graphql-replay")
    }

    static func body(id: String, sendsDocument: Bool = true, sendsHash: Bool = false) -> Data {
        var object: [String: Any] = ["operationName": "GetUser", "variables": ["id": id]]
        if sendsDocument { object["query"] = document }
        if sendsHash { object["extensions"] = ["persistedQuery": ["version": 1, "sha256Hash": hash]] }
        return try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    func recording(_ body: Data, answer: String, at seconds: TimeInterval = 0) -> Interaction {
        Recordings.make(
            .post, "/graphql", requestHeaders: [.contentType: "application/json"], requestBody: body, body: Data(answer.utf8),
            recordedAt: Recordings.recordedAt.addingTimeInterval(seconds))
    }

    func replayed(_ body: Data) async throws -> String {
        let store = try await CassetteStore.open(path: self.store, access: .readOnly)
        let session = try await CassetteSession.open(store: store, options: .init(mode: .replayOnly))
        let request = TransportRequest(
            method: .post, url: URL(string: "http://127.0.0.1:1/graphql")!, headerFields: [.contentType: "application/json"], body: body)
        let result: String
        do {
            result = String(decoding: try session.replay(request).response.body, as: UTF8.self)
        } catch let miss as CassetteMiss {
            result = "miss: " + miss.summary
        }
        try await store.close()
        return result
    }

    @Test func aDocumentRecordedDuringTheSessionAnswersItsHashOnlyKeyAtOnce() throws {
        let ada = #"{"data":{"user":{"id":"1","name":"Ada"}}}"#
        // Loaded: the hash alone, answered PersistedQueryNotFound; recorded during the session: the document.
        let notFound = recording(Self.body(id: "1", sendsDocument: false, sendsHash: true), answer: Self.notFound)
        let index = ReplayIndex(cassette: "dev", interactions: [notFound])
        let document = recording(Self.body(id: "1", sendsHash: true), answer: ada, at: 1)
        let alias = RequestKey.graphQLHashOnly(
            method: .post, target: document.url, headerFields: document.requestHeaders, body: document.requestBody, rules: .default)?.rawValue
        #expect(alias == notFound.key)
        index.appendServed(document, alias: alias)
        #expect(index.peek(notFound.key).map { String(decoding: $0.responseBody, as: UTF8.self) } == ada)

        // A hash-only key with a real answer of its own keeps it.
        let answered = recording(Self.body(id: "2", sendsDocument: false, sendsHash: true), answer: #"{"data":{"user":null}}"#)
        let other = ReplayIndex(cassette: "dev", interactions: [answered])
        let grace = recording(Self.body(id: "2", sendsHash: true), answer: #"{"data":{"user":{"id":"2","name":"Grace"}}}"#, at: 1)
        other.appendServed(
            grace,
            alias: RequestKey.graphQLHashOnly(
                method: .post, target: grace.url, headerFields: grace.requestHeaders, body: grace.requestBody, rules: .default)?.rawValue)
        #expect(other.peek(answered.key).map { String(decoding: $0.responseBody, as: UTF8.self) } == #"{"data":{"user":null}}"#)
    }

    @Test func aHashOnlyRequestGetsTheAnswerRecordedWithTheDocumentNotPersistedQueryNotFound() async throws {
        // The Apollo flow as recorded: the hash alone (PersistedQueryNotFound), then document and hash.
        try await fillStore(
            store,
            with: [
                recording(Self.body(id: "1", sendsDocument: false, sendsHash: true), answer: Self.notFound, at: 0),
                recording(Self.body(id: "1", sendsHash: true), answer: #"{"data":{"user":{"id":"1","name":"Ada"}}}"#, at: 1),
            ])
        #expect(try await replayed(Self.body(id: "1", sendsDocument: false, sendsHash: true)) == #"{"data":{"user":{"id":"1","name":"Ada"}}}"#)
        #expect(try await replayed(Self.body(id: "1")) == #"{"data":{"user":{"id":"1","name":"Ada"}}}"#)
    }

    @Test func aHashOnlyRequestFindsARecordingOfAClientThatNeverSentAHash() async throws {
        try await fillStore(store, with: [recording(Self.body(id: "2"), answer: #"{"data":{"user":{"id":"2","name":"Grace"}}}"#)])
        #expect(try await replayed(Self.body(id: "2", sendsDocument: false, sendsHash: true)) == #"{"data":{"user":{"id":"2","name":"Grace"}}}"#)
        let missed = try await replayed(Self.body(id: "3", sendsDocument: false, sendsHash: true))
        #expect(missed.hasPrefix("miss: No recording of POST /graphql gql:persisted:GetUser"), "\(missed)")
    }

    @Test func everyRecordingOfAnOperationAnswersTheHashOfTheDocumentItWasSentWith() async throws {
        // Two clients printed one document differently: one key, two hashes.
        let printed = try JSONSerialization.data(withJSONObject: [
            "query": "query GetUser($id: ID!) {\n  user(id: $id) {\n    id\n    name\n  }\n}", "operationName": "GetUser", "variables": ["id": "1"],
        ])
        try await fillStore(
            store, with: [recording(printed, answer: #"{"data":{"n":1}}"#, at: 0), recording(Self.body(id: "1"), answer: #"{"data":{"n":2}}"#, at: 1)])
        #expect(try await replayed(Self.body(id: "1", sendsDocument: false, sendsHash: true)) == #"{"data":{"n":1}}"#)
    }

    @Test func aRecordedPersistedQueryNotFoundAloneIsStillReplayed() async throws {
        // Nothing better was recorded: the client's own retry with the document is what it needs.
        try await fillStore(store, with: [recording(Self.body(id: "1", sendsDocument: false, sendsHash: true), answer: Self.notFound)])
        #expect(try await replayed(Self.body(id: "1", sendsDocument: false, sendsHash: true)) == Self.notFound)
    }

    @Test func aCassetteKeyedBeforeGraphQLKeyingIsRekeyedOnceAndHitsReformattedDocuments() async throws {
        var old = recording(Self.body(id: "1"), answer: #"{"data":{"user":{"id":"1"}}}"#)
        // How format 3 keyed it: the raw JSON body's fingerprint.
        old.key =
            RequestKey(
                method: .post, target: "/graphql", headerFields: [.contentType: "application/json"], body: old.requestBody,
                rules: MatchingRules(graphQLPaths: [String]())
            ).rawValue
        #expect(!old.key.contains("gql:"))
        try await fillStore(store, with: [old], cassettes: [CassetteInfo(name: "dev", keyFormat: 3)])
        let reformatted = try JSONSerialization.data(withJSONObject: [
            "query": "query GetUser($id:ID!){\n  user(id:$id){ id, name }\n}", "variables": ["id": "1"],
        ])
        #expect(try await replayed(reformatted) == #"{"data":{"user":{"id":"1"}}}"#)

        let writable = try await CassetteStore.open(path: store, access: .readWrite)
        #expect(try await writable.rekey(cassette: "dev", rules: .default) == 1)
        #expect(try await writable.rekey(cassette: "dev", rules: .default) == 0)
        try await writable.close()
        #expect(try await storedInteractions(store).map(\.key).allSatisfy { $0.hasPrefix("POST /graphql gql:query:GetUser body:sha256:") })
    }

    @Test func aChangedVariableMissesAndTheMissNamesTheOperationAndTheVariable() async throws {
        try await fillStore(store, with: [recording(Self.body(id: "1"), answer: "{}")])
        let missed = try await replayed(Self.body(id: "2"))
        #expect(missed.contains(#"GetUser: variables differ at $.id: recorded "1", got "2""#), "\(missed)")
    }
}
