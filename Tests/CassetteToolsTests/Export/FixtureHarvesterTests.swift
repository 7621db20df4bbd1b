import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The rules `cassette export` relies on, checked in process on interactions built by hand.
@Suite("FixtureHarvester")
struct FixtureHarvesterTests {
    /// Interactions with ids, as the store hands them out.
    static func stored(_ interactions: Interaction...) -> [Interaction] {
        interactions.enumerated().map { index, interaction in
            var interaction = interaction
            interaction.id = Int64(index + 1)
            return interaction
        }
    }

    static func body(_ text: String) -> Data { Data(text.utf8) }

    static func graphQL(_ variables: String, answer: String, at seconds: TimeInterval = 0) -> Interaction {
        let body = #"{"query":"query GetUser($id: ID!) { user(id: $id) { id name } }","operationName":"GetUser","variables":\#(variables)}"#
        return Recordings.make(
            .post, "/graphql", requestHeaders: [.contentType: "application/json"], requestBody: Data(body.utf8), body: Data(answer.utf8),
            recordedAt: Recordings.recordedAt.addingTimeInterval(seconds))
    }

    @Test func aGraphQLOperationGetsAFixtureAndARouteNamingTheVariablesOfEachVariant() throws {
        let rules = MatchingRules(ignoredBodyFields: ["$.variables.requestId"])
        let recordings = Self.stored(
            Self.graphQL(#"{"id":"1","requestId":"a"}"#, answer: #"{"data":{"user":{"id":"1","name":"Ada"}}}"#),
            Self.graphQL(#"{"requestId":"b","id":"1"}"#, answer: #"{"data":{"user":{"id":"1","name":"Ada L."}}}"#, at: 1),
            Self.graphQL(#"{"id":"2"}"#, answer: #"{"data":{"user":{"id":"2","name":"Grace"}}}"#, at: 2))
        let harvest = FixtureHarvester(rules: rules).harvest(recordings)
        #expect(
            harvest.fixtures.map(\.fixture) == [
                "mock_graphql_post_query_getuser", "mock_graphql_post_query_getuser_id_1", "mock_graphql_post_query_getuser_id_2",
            ])
        #expect(harvest.fixtures.map { $0.variables?.jsonString(options: .sortedKeys) ?? "-" } == ["-", #"{"id":"1"}"#, #"{"id":"2"}"#])
        #expect(harvest.fixtures.map(\.recordingCount) == [3, 2, 1], "an ignored member makes no variant of its own")
        #expect(harvest.fixtures[1].value["data"]?["user"]?["name"] == "Ada L.", "the variant's most recent answer")
        #expect(harvest.fixtures[0].value["data"]?["user"]?["name"] == "Grace", "the operation's most recent answer, for any variables")

        // Exported again over its own registry, every fixture keeps its name.
        let registry = MockResponseRegistry(registrations: harvest.fixtures.flatMap(\.routes))
        #expect(registry.registrations.count == 3)
        let renamed = MockResponseRegistry(
            registrations: registry.registrations.map { route in
                route.variables == nil
                    ? route
                    : try! MockRoute(
                        method: route.method, path: route.path, operation: route.operation, variables: route.variables, fixture: route.fixture + "_mine")
            })
        #expect(
            FixtureHarvester(registry: renamed, rules: rules).harvest(recordings).fixtures.map(\.fixture) == [
                "mock_graphql_post_query_getuser", "mock_graphql_post_query_getuser_id_1_mine", "mock_graphql_post_query_getuser_id_2_mine",
            ])
        // One variant only: the operation's fixture alone, as before.
        #expect(FixtureHarvester(rules: rules).harvest(Array(recordings.prefix(2))).fixtures.map(\.fixture) == ["mock_graphql_post_query_getuser"])
    }

    @Test func endpointsWhoseDefaultNamesCollideGetNumberedNames() {
        let harvest = FixtureHarvester().harvest(
            Self.stored(
                Recordings.make(.get, "/api/a.b", body: Self.body(#"{"dot":true}"#)),
                Recordings.make(.get, "/api/a_b", body: Self.body(#"{"underscore":true}"#))
            ))
        #expect(harvest.fixtures.map(\.fixture) == ["mock_api_a_b_get", "mock_api_a_b_get_2"])
        #expect(harvest.fixtures.map { $0.endpoints.map(\.pattern) } == [["/api/a.b"], ["/api/a_b"]])
        #expect(harvest.fixtures[1].value == ["underscore": true])
    }

    @Test func aNewEndpointNeverTakesTheNameOfARegisteredFixture() throws {
        let registry = MockResponseRegistry(registrations: [try MockRoute(method: .get, path: "/api/legacy", fixture: "mock_api_health_get")])
        let harvest = FixtureHarvester(registry: registry).harvest(Self.stored(Recordings.make(.get, "/api/health")))
        #expect(harvest.fixtures.map(\.fixture) == ["mock_api_health_get_2"])
    }

    @Test func routesSharingAFixtureGetOneFileFromTheirMostRecentRecording() throws {
        let registry = MockResponseRegistry(registrations: [
            try MockRoute(method: .get, path: "/api/today", fixture: "summary"),
            try MockRoute(method: .get, path: "/api/summary", fixture: "summary"),
        ])
        let later = Recordings.recordedAt.addingTimeInterval(5)
        let harvest = FixtureHarvester(registry: registry).harvest(
            Self.stored(
                Recordings.make(.get, "/api/today", body: Self.body(#"{"from":"today"}"#), recordedAt: later),
                Recordings.make(.get, "/api/summary", body: Self.body(#"{"from":"summary"}"#))
            ))
        let fixture = try #require(harvest.fixtures.first)
        #expect(harvest.fixtures.count == 1)
        #expect(fixture.fixture == "summary")
        #expect(fixture.endpoints.map(\.description) == ["GET /api/summary", "GET /api/today"])
        #expect(fixture.value == ["from": "today"])
        #expect(fixture.recordingCount == 2)
        #expect(fixture.routes.map(\.description) == ["GET /api/summary -> summary", "GET /api/today -> summary"])
    }

    @Test func theNewestUsableRecordingWinsOverANewerFailure() {
        let harvest = FixtureHarvester().harvest(
            Self.stored(
                Recordings.make(.get, "/api/users/1", body: Self.body(#"{"id":1}"#)),
                Recordings.make(
                    .get, "/api/users/2", status: 500, body: Self.body(#"{"error":"boom"}"#), recordedAt: Recordings.recordedAt.addingTimeInterval(60))
            ))
        #expect(harvest.fixtures.map(\.value) == [["id": 1]])
        #expect(harvest.fixtures.map(\.sourceID) == [1])
        #expect(harvest.fixtures.map(\.skippedCount) == [1])
        #expect(harvest.skipped.isEmpty)
    }

    @Test func skippedEndpointsListEachDistinctReasonNewestFirst() {
        let harvest = FixtureHarvester().harvest(
            Self.stored(
                Recordings.make(.get, "/api/report", status: 503, body: Self.body("{}")),
                Recordings.make(
                    .get, "/api/report", responseHeaders: [.contentType: "text/csv"], body: Self.body("a,b"),
                    recordedAt: Recordings.recordedAt.addingTimeInterval(1)),
                Recordings.make(.get, "/api/report", status: 503, body: Self.body("{}"), recordedAt: Recordings.recordedAt.addingTimeInterval(2))
            ))
        #expect(harvest.fixtures.isEmpty)
        #expect(
            harvest.skipped == [
                SkippedEndpoint(
                    endpoint: Endpoint(method: .get, pattern: "/api/report"),
                    reasons: ["status 503: only 2xx responses become fixtures", "text/csv: not JSON"],
                    recordingCount: 3
                )
            ])
    }

    @Test func contentsArePrettySortedJSONWithAFinalNewline() throws {
        let harvest = FixtureHarvester().harvest(
            Self.stored(
                Recordings.make(.get, "/api/x", body: Self.body(#"{"b":[1,2.50,1e3],"a":{"z":null,"y":"\u00e9"},"big":123456789012345678901234567890}"#))
            ))
        let contents = try #require(harvest.fixtures.first?.contents)
        #expect(
            String(decoding: contents, as: UTF8.self) == """
                {
                  "a": {
                    "y": "é",
                    "z": null
                  },
                  "b": [
                    1,
                    2.5,
                    1000.0
                  ],
                  "big": 123456789012345678901234567890
                }

                """)
    }

    @Test func redactingAParsedValueKeepsHowNumbersWereWritten() throws {
        let redactor = Redactor(extraJSONFields: ["Secret"])
        let value = try JSONValue(parsing: #"{"amount":1.0,"count":2,"secret":{"nested":true},"list":[{"SECRET":3}],"password":"hunter2"}"#)
        #expect(redactor.redact(json: value) == ["amount": 1.0, "count": 2, "secret": "REDACTED", "list": [["SECRET": "REDACTED"]], "password": "REDACTED"])
        #expect(Redactor.disabled.redact(json: value) == value)
    }
}
