import Foundation
import TestSupport
import Testing
import WellPlateCore

/// `list`, `list --json` and `show` name the operations a conversation carried (GraphQL over
/// WebSocket here), as they name a GraphQL request's; a store with only conversations lists them
/// in `--json` too. (Recorded from real peers in `ProxyMultiplexedTests`.)
@Suite("Operations inside WebSocket conversations in list and show")
final class ConversationOperationsCommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let countdown = #"subscription Countdown($from: Int!) { countdown(from: $from) }"#

    /// graphql-transport-ws: Countdown from 2 ("1") and from 3 ("2"), and query Hello ("3").
    static var conversation: Conversation {
        let texts: [(ConversationSide, String)] = [
            (.client, #"{"type":"connection_init"}"#), (.server, #"{"type":"connection_ack"}"#),
            (.client, #"{"id":"1","type":"subscribe","payload":{"query":"\#(countdown)","variables":{"from":2}}}"#),
            (.client, #"{"id":"2","type":"subscribe","payload":{"query":"\#(countdown)","variables":{"from":3}}}"#),
            (.server, #"{"id":"1","type":"next","payload":{"data":{"countdown":2}}}"#),
            (.server, #"{"id":"2","type":"next","payload":{"data":{"countdown":3}}}"#),
            (.client, #"{"id":"3","type":"subscribe","payload":{"query":"query Hello { hello }"}}"#),
            (.server, #"{"id":"3","type":"next","payload":{"data":{"hello":"world"}}}"#), (.server, #"{"id":"3","type":"complete"}"#),
            (.server, #"{"id":"1","type":"complete"}"#), (.server, #"{"id":"2","type":"complete"}"#),
        ]
        return Conversation(
            cassette: "dev", url: "http://127.0.0.1:8081/graphql", key: "GET /graphql", requestHeaders: [:], subprotocol: "graphql-transport-ws",
            extensions: nil, recordedAt: Recordings.recordedAt,
            messages: texts.enumerated().map { index, message in
                ConversationMessage(direction: message.0, kind: .text, payload: Data(message.1.utf8), offsetMilliseconds: Double(index))
            }, end: .closed(by: .client, code: 1000, reason: ""))
    }

    private func makeStore(_ name: String = "ws.db", _ conversation: Conversation = conversation) async throws {
        let store = try await CassetteStore.open(path: workspace.path(name), access: .readWrite)
        _ = try await store.beginConversation(conversation)
        try await store.close()
    }

    @Test func listJSONPrintsAStoreWithOnlyConversationsWithTheirOperations() async throws {
        try await makeStore()
        let result = try await workspace.run("list", "--json", "--db", "ws.db")
        #expect(result.status == 0, "\(result)")
        let listed = try #require(try JSONValue(parsing: result.stdout).arrayValue)
        #expect(listed.count == 1, "\(result.stdout)")
        let conversation = try #require(listed.first)
        #expect(conversation["webSocket"] == true)
        #expect(conversation["key"]?.stringValue == "GET /graphql")
        #expect(conversation["cassette"]?.stringValue == "dev")
        #expect(conversation["sent"] == .integer(4) && conversation["received"] == .integer(7))
        #expect(conversation["end"]?.stringValue == "client closed 1000")
        #expect(conversation["recordedAt"]?.stringValue?.hasPrefix("20") == true)
        let operations = try #require(conversation["operations"]?.arrayValue)
        #expect(operations.map { $0["operation"]?.stringValue } == ["subscription Countdown", "subscription Countdown", "query Hello"])
        #expect(operations.map { $0["variables"] } == [["from": 2], ["from": 3], .null])
        #expect(operations.map { $0["answers"] } == [.integer(1), .integer(1), .integer(1)])
    }

    @Test func listHasAnOperationsColumnAndShowNumbersEachMessagesOperation() async throws {
        try await makeStore()
        let listed = try await workspace.run("list", "--db", "ws.db")
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdout.contains("OPERATIONS"), "\(listed.stdout)")
        #expect(listed.stdout.contains("subscription Countdown ×2, query Hello"), "\(listed.stdout)")
        let shown = try await workspace.run("show", "GET /graphql", "--db", "ws.db")
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdout.contains("  #1 subscription Countdown {\"from\":2}  (1 answer)"), "\(shown.stdout)")
        #expect(shown.stdout.contains("  #3 query Hello  (1 answer)"), "\(shown.stdout)")
        #expect(shown.stdout.contains(#"-> text   #2 {"id":"2","type":"subscribe""#), "\(shown.stdout)")
        #expect(shown.stdout.contains(#"-> text      {"type":"connection_init"}"#), "\(shown.stdout)")
    }

    @Test func exportFixturesWritesOneFixturePerOperationAndVariablesVariantWithItsPayloads() async throws {
        try await makeStore()
        let result = try await workspace.run("export", "--fixtures", "Fixtures", "--db", "ws.db")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.contains(
                "created  websocket/subscription_countdown_from_2.json  (subscription Countdown {\"from\":2} in WebSocket GET /graphql, 1 payload)"),
            "\(result.stdout)")
        #expect(result.stdout.contains("created  websocket/query_hello.json"), "\(result.stdout)")
        #expect(result.stdout.contains("Exported 1 WebSocket conversation and 3 operation fixtures from cassette dev"), "\(result.stdout)")
        let data = try Data(contentsOf: workspace.directory.appendingPathComponent("Fixtures/websocket/subscription_countdown_from_3.json"))
        let fixture = try JSONValue(parsing: data)
        #expect(fixture["operation"]?.stringValue == "subscription Countdown")
        #expect(fixture["key"]?.stringValue == "GET /graphql")
        #expect(fixture["variables"] == ["from": 3])
        #expect(fixture["payloads"] == [["data": ["countdown": 3]]])
        // Exported again, nothing changes.
        let again = try await workspace.run("export", "--fixtures", "Fixtures", "--db", "ws.db")
        #expect(again.stdout.contains("unchanged  websocket/query_hello.json"), "\(again.stdout)")
    }

    @Test func schemaAndDiffReadASubscriptionsPayloadsAsThatOperationsJSON() async throws {
        try await makeStore()
        let schema = try await workspace.run("schema", "--db", "ws.db")
        #expect(schema.status == 0, "\(schema)")
        let schemas = try JSONValue(parsing: schema.stdout)
        #expect(schemas["POST /graphql subscription Countdown"]?["properties"]?["countdown"]?["type"]?.stringValue == "integer", "\(schema.stdout)")
        #expect(schemas["POST /graphql query Hello"]?["properties"]?["hello"]?["type"]?.stringValue == "string", "\(schema.stdout)")
        // The API changed: Countdown now sends null.
        var drifted = Self.conversation
        drifted.messages[4].payload = Data(#"{"id":"1","type":"next","payload":{"data":{"countdown":null}}}"#.utf8)
        try await makeStore("drifted.db", drifted)
        let diff = try await workspace.run("diff", "--db", "ws.db", "--against", "drifted.db")
        #expect(diff.status == 1, "\(diff)")
        #expect(diff.stdout.contains("POST /graphql subscription Countdown"), "\(diff.stdout)")
        #expect(diff.stdout.contains("$.countdown"), "\(diff.stdout)")
        #expect(!diff.stdout.contains("query Hello"), "\(diff.stdout)")
        // The fixtures harvested from the first store, against the drifted one.
        #expect(try await workspace.run("export", "--fixtures", "Fixtures", "--db", "ws.db").status == 0)
        let fixtures = try await workspace.run("diff", "--db", "drifted.db", "--fixtures", "Fixtures")
        #expect(fixtures.status == 1, "\(fixtures)")
        #expect(
            fixtures.stdout.contains("POST /graphql subscription Countdown  (fixture websocket/subscription_countdown_from_2.json, 2 recordings)"),
            "\(fixtures.stdout)")
        #expect(fixtures.stdout.contains("error   $.countdown"), "\(fixtures.stdout)")
        // Hello's fixture matched its recording: nothing to say about it. The whole conversation's
        // file (`websocket/graphql.json`) is a replay fixture, not a drift fixture: not counted.
        #expect(fixtures.stdout.contains("2 errors, 0 warnings, 0 notes in 1 endpoint (3 fixtures, 2 recorded endpoints)"), "\(fixtures.stdout)")
        #expect(!fixtures.stdout.contains("(no endpoint)"), "\(fixtures.stdout)")
    }
}
