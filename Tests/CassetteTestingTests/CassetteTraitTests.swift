import Foundation
import Synchronization
import TestSupport
import Testing
import WellPlateNetworking

@testable import CassetteTesting
@testable import WellPlateCore
@testable import WellPlateNetworking

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `.cassette` trait on tests and suites, replaying recordings written before the suite.
@Suite(.cassetteFixture(TraitFixture.store, TraitFixture.recordings))
struct CassetteTraitTests {
    static let store = TraitFixture.store
    static let base = URL(string: "http://127.0.0.1:1")!

    typealias Item = TraitFixture.Item

    @Test(.cassette(store: TraitFixture.store, mode: RecordMode.replayOnly))
    func replaysTheCassetteNamedAfterTheTest() async throws {
        #expect(Cassette.current.name == "CassetteTraitTests/replaysTheCassetteNamedAfterTheTest()")
        #expect(Cassette.current.mode == RecordMode.replayOnly)
        #expect(Cassette.current.storePath == Self.store)
        let item = try await Cassette.current.client.get(url: Self.base.appending(path: "api/items/1"), responseType: Item.self)
        #expect(item == Item(name: "own"))
    }

    @Test(.cassette("errors", store: TraitFixture.store, mode: RecordMode.replayOnly))
    func aRecordedErrorReplaysAsTheLiveClientsError() async throws {
        do {
            _ = try await Cassette.current.client.get(url: Self.base.appending(path: "api/items/404"), responseType: Item.self)
            Issue.record("a recorded 404 was returned as a success")
        } catch let error as APIError {
            #expect(error.statusCode == 404)
            #expect(error.localizedDescription.contains("no item 404"))
        }
    }

    @Suite(.cassette(store: TraitFixture.store, mode: RecordMode.replayOnly, allowUnused: false))
    struct OnASuite {
        @Test func first() async throws {
            let item = try await Cassette.current.client.get(url: CassetteTraitTests.base.appending(path: "api/items/1"), responseType: Item.self)
            #expect(item.name == "first")
        }

        @Test func second() async throws {
            let item = try await Cassette.current.client.get(url: CassetteTraitTests.base.appending(path: "api/items/1"), responseType: Item.self)
            #expect(item.name == "second")
        }
    }

    @Test(.cassette("shared", store: TraitFixture.store, mode: RecordMode.replayOnly, allowUnused: false))
    func aConfigurationOfTheTestsOwnAnswersFromItsCassette() async throws {
        let configuration = URLSessionConfiguration.default
        configuration.useCassette()
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        for (id, name) in [(1, "shared"), (2, "second")] {
            let (data, _) = try await session.data(from: Self.base.appending(path: "api/items/\(id)"))
            #expect(try JSONDecoder().decode(Item.self, from: data) == Item(name: name))
        }
    }

    /// On both the suite and the test, the test's own trait decides; the suite's cassette, never
    /// used, reports nothing (it would fail the test: `allowUnused: false`).
    @Suite(.cassette(store: TraitFixture.store, mode: RecordMode.replayOnly, allowUnused: false))
    struct OnTheSuiteAndTheTest {
        @Test(.cassette("errors", store: TraitFixture.store, mode: RecordMode.replayOnly))
        func theTestsOwnTraitWins() async throws {
            #expect(Cassette.current.name == "errors")
            await #expect(throws: APIError.self) {
                _ = try await Cassette.current.client.get(url: CassetteTraitTests.base.appending(path: "api/items/404"), responseType: Item.self)
            }
        }
    }

    @Test func outsideTheTraitCurrentFailsTheTestSayingToAddIt() async throws {
        var cassette: Cassette?
        withKnownIssue {
            cassette = Cassette.current
        } matching: { issue in
            "\(issue)".contains("add the .cassette trait")
        }
        await #expect(throws: CassetteTestingError.self) {
            _ = try await cassette?.client.get(url: Self.base.appending(path: "api/items/1"), responseType: Item.self)
        }
    }

    @Test func aMissInReplayFailsTheTestWithTheExplanation() async throws {
        let settings = CassetteSettings(cassette: "shared", storePath: Self.store, mode: .replayOnly)
        try await withKnownIssue {
            try await CassetteScope.run(settings, sourceLocation: #_sourceLocation) {
                for id in 1...2 {
                    _ = try await Cassette.current.client.get(url: Self.base.appending(path: "api/items/\(id)"), responseType: Item.self)
                }
                _ = try await Cassette.current.client.get(url: Self.base.appending(path: "api/items/3"), responseType: Item.self)
            }
        } matching: { issue in
            let text = "\(issue)"
            return text.contains("No recording of GET /api/items/3 in cassette \"shared\"") && text.contains("nearest: GET /api/items/")
                && text.contains("path") && text.contains("CASSETTE_RECORD=missing")
        }
    }

    @Test func unusedRecordingsAreAWarningOrWithAllowUnusedFalseAFailure() async throws {
        for allowUnused in [true, false] {
            let settings = CassetteSettings(cassette: "shared", storePath: Self.store, mode: .replayOnly, allowUnused: allowUnused)
            let store = try await CassetteStore.open(path: Self.store, access: .readOnly)
            let cassette = try await Cassette.open(settings, store: store)
            _ = try await cassette.client.get(url: Self.base.appending(path: "api/items/1"), responseType: Item.self)
            let findings = CassetteScope.findings(cassette)
            cassette.close()
            try await store.close()
            #expect(findings.count == 1)
            #expect(findings.first?.severity == (allowUnused ? .warning : .error))
            #expect(findings.first?.text.contains("has 1 recording(s) this test never used: GET /api/items/2") == true)
        }
    }

    @Test func theProtocolClassServesNoOtherCassetteUntilItsSessionIsInvalidated() async throws {
        let settings = CassetteSettings(cassette: "shared", storePath: Self.store, mode: .replayOnly)
        let bound = Mutex<(CassetteURLProtocol.Type, CassetteBinding)?>(nil)
        try await CassetteScope.run(settings, sourceLocation: #_sourceLocation) {
            for id in 1...2 {
                _ = try await Cassette.current.urlSession.data(from: Self.base.appending(path: "api/items/\(id)"))
            }
            let cassette = Cassette.current
            #expect(CassetteURLProtocol.binding(for: cassette.protocolClass) === cassette.binding)
            bound.withLock { $0 = (cassette.protocolClass, cassette.binding) }
        }
        let (protocolClass, binding) = try #require(bound.withLock { $0 })
        // The session's invalidation is reported on its delegate queue, shortly after the scope.
        for _ in 0..<500 where CassetteURLProtocol.binding(for: protocolClass) === binding {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(CassetteURLProtocol.binding(for: protocolClass) !== binding)
    }

    @Test func aStoreThatDoesNotExistFailsReplaySayingHowToRecord() async throws {
        let settings = CassetteSettings(cassette: "any", storePath: "/nonexistent/cassettes.db", mode: .replayOnly)
        try await withKnownIssue {
            try await CassetteScope.run(settings, sourceLocation: #_sourceLocation) {
                Issue.record("the test ran without its store")
            }
        } matching: { issue in
            "\(issue)".contains("/nonexistent/cassettes.db does not exist") && "\(issue)".contains("CASSETTE_RECORD=once")
        }
    }
}

enum TraitFixture {
    static let store = CassetteFixture.path("trait")

    struct Item: Codable, Equatable {
        var name: String
    }

    @Sendable static func recordings() -> [Interaction] {
        [
            CassetteFixture.recording(cassette: "CassetteTraitTests/replaysTheCassetteNamedAfterTheTest()", .get, "/api/items/1", json: #"{"name":"own"}"#),
            CassetteFixture.recording(cassette: "shared", .get, "/api/items/1", json: #"{"name":"shared"}"#),
            CassetteFixture.recording(cassette: "shared", .get, "/api/items/2", json: #"{"name":"second"}"#),
            CassetteFixture.recording(cassette: "errors", .get, "/api/items/404", status: 404, json: #"{"message":"no item 404"}"#),
            CassetteFixture.recording(cassette: "CassetteTraitTests/OnASuite/first()", .get, "/api/items/1", json: #"{"name":"first"}"#),
            CassetteFixture.recording(cassette: "CassetteTraitTests/OnASuite/second()", .get, "/api/items/1", json: #"{"name":"second"}"#),
            CassetteFixture.recording(
                cassette: "CassetteTraitTests/OnTheSuiteAndTheTest/theTestsOwnTraitWins()", .get, "/api/items/1", json: #"{"name":"unused"}"#),
        ]
    }
}
