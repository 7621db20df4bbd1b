import Foundation
import TestSupport
import Testing
import WellPlateCore

/// Several operations on one WebSocket through `cassette record` and `cassette replay`, between
/// real peers: the PyPI `gql` client and a strawberry-graphql server (graphql-transport-ws and the
/// legacy graphql-ws), and JSON-RPC 2.0 on `websockets`. Recorded in one order, replayed (the
/// server stopped) to a client that starts them in another, so with other ids.
@Suite("Multiplexed conversations through the proxy")
final class ProxyMultiplexedTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("mux.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Records what `client` prints talking to `server` through `cassette record`.
    private func record(_ server: String, _ client: (_ proxy: String) async throws -> [String]) async throws -> [String] {
        try await MultiplexedPeers.withServer(server) { base in
            try await withInProcessProxy(["record", "--upstream", base.absoluteString, "--port", "0", "--db", store]) { recorder in
                let received = try await client("http://127.0.0.1:\(recorder.port)")
                try await recorder.waitForLogLine(containing: "101 WebSocket recording")
                await recorder.stop()
                return received
            }
        }
    }

    static let graphQLAnswers = [#"{"op": "2", "values": [2, 1]}"#, #"{"op": "3", "values": [3, 2, 1]}"#, #"{"op": "hello", "values": ["world"]}"#]

    @Test func twoSubscriptionsAndAQueryRecordedInOneOrderReplayInAnotherWithTheLiveIds() async throws {
        let recorded = try await record("graphql-server") { try await MultiplexedPeers.client("graphql-client", [$0, "23h"]) }
        #expect(recorded == Self.graphQLAnswers)
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        #expect(conversation.subprotocol == "graphql-transport-ws")
        let operations = ConversationOperations(conversation)
        #expect(operations.operations.map(\.label) == ["subscription Countdown", "subscription Countdown", "query Hello"])
        // gql numbered them 1, 2, 3 as it sent them: Countdown from 2 was "1".
        #expect(operations.operations.map(\.id) == ["s:1", "s:2", "s:3"])
        for timing in [["--ws-timing", "fast"], []] {
            try await withInProcessProxy(["replay", "--port", "0", "--db", store, "--strict"] + timing) { replayer in
                // Hello first ("1"), then Countdown from 3 ("2"), then from 2 ("3"): gql only takes answers with its own ids.
                let replayed = try await MultiplexedPeers.client("graphql-client", ["http://127.0.0.1:\(replayer.port)", "h32"])
                #expect(replayed == Self.graphQLAnswers, "\(replayer.outputLines)")
                #expect(await replayer.stop().counters.missed == 0, "\(replayer.outputLines) \(replayer.standardError)")
            }
        }
    }

    @Test func legacyGraphQLWSSubscriptionsReplayInAnotherOrder() async throws {
        let recorded = try await record("graphql-server") { try await MultiplexedPeers.client("graphql-client", [$0, "23", "graphql-ws"]) }
        #expect(recorded == Array(Self.graphQLAnswers.prefix(2)))
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        #expect(conversation.subprotocol == "graphql-ws")
        #expect(ConversationOperations(conversation).labels == ["subscription Countdown"])
        try await withInProcessProxy(["replay", "--port", "0", "--db", store, "--strict", "--ws-timing", "fast"]) { replayer in
            let replayed = try await MultiplexedPeers.client("graphql-client", ["http://127.0.0.1:\(replayer.port)", "32", "graphql-ws"])
            #expect(replayed == Array(Self.graphQLAnswers.prefix(2)), "\(replayer.outputLines)")
            #expect(await replayer.stop().counters.missed == 0, "\(replayer.outputLines) \(replayer.standardError)")
        }
    }

    @Test func jsonRPCCallsSentInAnotherOrderWithOtherIdsGetTheirOwnResults() async throws {
        let recorded = try await record("jsonrpc-server") { try await MultiplexedPeers.client("jsonrpc-client", [$0, "abc", "1"]) }
        #expect(recorded == [#"{"a": 4, "b": 3, "c": 12}"#, #"{"ids": {"a": 1, "b": 2, "c": 3}}"#])
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        let texts = conversation.messages.filter { $0.direction == .server && $0.isData }.map { String(decoding: $0.payload, as: UTF8.self) }
        // The server answered b (30 ms), c (60 ms), then a (90 ms).
        #expect(texts.first?.contains(#""id": 2"#) == true, "\(texts)")
        try await withInProcessProxy(["replay", "--port", "0", "--db", store, "--strict"]) { replayer in
            let replayed = try await MultiplexedPeers.client("jsonrpc-client", ["http://127.0.0.1:\(replayer.port)", "cba", "100"])
            #expect(replayed == [#"{"a": 4, "b": 3, "c": 12}"#, #"{"ids": {"a": 102, "b": 101, "c": 100}}"#], "\(replayer.outputLines)")
            #expect(await replayer.stop().counters.missed == 0, "\(replayer.outputLines) \(replayer.standardError)")
        }
    }

    @Test func aSessionsJournalNamesTheOperationsTheClientOpened() async throws {
        _ = try await record("jsonrpc-server") { try await MultiplexedPeers.client("jsonrpc-client", [$0, "abc", "1"]) }
        try await withInProcessReplayer(store: store, arguments: ["--ws-timing", "fast"]) { proxy in
            let session = try await proxy.openSession("dev")
            let replayed = try await MultiplexedPeers.client("jsonrpc-client", ["http://127.0.0.1:\(proxy.port)", "ba", "7", session.id])
            #expect(replayed == [#"{"a": 4, "b": 3}"#, #"{"ids": {"a": 8, "b": 7}}"#])
            let entries = try await session.requests()
            let conversation = try #require(entries.first?["webSocket"] as? [String: Any], "\(entries)")
            #expect(conversation["operations"] as? [String] == ["rpc add", "rpc add"], "\(conversation)")
            #expect(conversation["matched"] as? Int == 2)
        }
    }
}
