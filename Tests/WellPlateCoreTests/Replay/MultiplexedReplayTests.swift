import Foundation
import Testing

@testable import WellPlateCore

/// Conversations that run several operations on one socket, replayed operation by operation,
/// decided without a socket: a client that opens them in another order than the recording's
/// gets each one's messages, with its own ids.
@Suite("Multiplexed conversation replay")
struct MultiplexedReplayTests {
    private func message(_ direction: ConversationSide, _ text: String, at offset: Double, kind: ConversationMessage.Kind = .text) -> ConversationMessage {
        ConversationMessage(direction: direction, kind: kind, payload: Data(text.utf8), offsetMilliseconds: offset)
    }

    private static let countdown = #"subscription Countdown($from: Int!) { countdown(from: $from) }"#

    private static func subscribe(_ id: String, from: Int) -> String {
        #"{"id":"\#(id)","type":"subscribe","payload":{"query":"\#(countdown)","variables":{"from":\#(from)}}}"#
    }

    /// `graphql-transport-ws`: Countdown from 2 (id "a"), then from 3 (id "b"), interleaved; a query in between.
    private var recorded: Conversation {
        var conversation = Conversation(
            cassette: "dev", url: "http://a.test/graphql", key: "GET /graphql", requestHeaders: [:], subprotocol: "graphql-transport-ws", extensions: nil)
        conversation.messages = [
            message(.client, #"{"type":"connection_init"}"#, at: 1),
            message(.server, #"{"type":"connection_ack"}"#, at: 2),
            message(.client, Self.subscribe("a", from: 2), at: 10),
            message(.client, Self.subscribe("b", from: 3), at: 11),
            message(.server, #"{"id":"a","type":"next","payload":{"data":{"countdown":2}}}"#, at: 20),
            message(.server, #"{"id":"b","type":"next","payload":{"data":{"countdown":3}}}"#, at: 21),
            message(.client, #"{"id":"c","type":"subscribe","payload":{"query":"query Hello { hello }"}}"#, at: 25),
            message(.server, #"{"id":"c","type":"next","payload":{"data":{"hello":"world"}}}"#, at: 26),
            message(.server, #"{"id":"c","type":"complete"}"#, at: 27),
            message(.server, #"{"id":"a","type":"next","payload":{"data":{"countdown":1}}}"#, at: 120),
            message(.server, #"{"id":"a","type":"complete"}"#, at: 121),
            message(.server, #"{"id":"b","type":"next","payload":{"data":{"countdown":2}}}"#, at: 122),
            message(.server, #"{"id":"b","type":"next","payload":{"data":{"countdown":1}}}"#, at: 222),
            message(.server, #"{"id":"b","type":"complete"}"#, at: 223),
            message(.server, "\u{03}\u{e8}", at: 300, kind: .close),
        ]
        conversation.end = .closed(by: .server, code: 1000, reason: "")
        return conversation
    }

    private let keyer = ReplayKeyer(redactor: .default, rules: .default)

    private func receive(_ replay: inout MultiplexedReplay, _ live: String) throws(ConversationReplay.Mismatch) -> [MultiplexedReplay.Step] {
        var steps: [MultiplexedReplay.Step] = []
        try replay.receive(kind: .text, payload: Data(live.utf8), into: &steps) { [keyer] in
            keyer.messageMatches(live: $0, recorded: $1, secrets: SecretValues())
        }
        return steps
    }

    private func texts(_ steps: [MultiplexedReplay.Step]) -> [String] {
        steps.compactMap { step in
            guard case .send(let message, _) = step.action else { return nil }
            return String(decoding: message.payload, as: UTF8.self)
        }
    }

    @Test func operationsAreNamedAndTheirMessagesGrouped() throws {
        let operations = ConversationOperations(recorded)
        #expect(operations.operations.map(\.label) == ["subscription Countdown", "subscription Countdown", "query Hello"])
        #expect(operations.labels == ["subscription Countdown", "query Hello"])
        #expect(operations.operations.map(\.messageIndexes) == [[2, 4, 9, 10], [3, 5, 11, 12, 13], [6, 7, 8]])
        #expect(
            operations.operations[0].answers == [try JSONValue(parsing: #"{"data":{"countdown":2}}"#), try JSONValue(parsing: #"{"data":{"countdown":1}}"#)])
        #expect(operations.operationOfMessage[0] == nil && operations.operationOfMessage[1] == nil)
    }

    @Test func operationsOpenedInAnotherOrderGetTheirOwnMessagesWithTheLiveIdsAndRecordedDelays() throws {
        var replay = MultiplexedReplay(recorded)
        #expect(replay.isMultiplexed)
        #expect(texts(replay.start()).isEmpty)
        #expect(texts(try receive(&replay, #"{"type":"connection_init"}"#)) == [#"{"type":"connection_ack"}"#])
        // The query first, then Countdown from 3, then from 2, with ids the client chose.
        let query = try receive(&replay, #"{"id":"9","type":"subscribe","payload":{"query":"query Hello { hello }"}}"#)
        #expect(texts(query) == [#"{"id":"9","type":"next","payload":{"data":{"hello":"world"}}}"#, #"{"id":"9","type":"complete"}"#])
        #expect(query.map(\.lane) == [3, 3])
        let three = try receive(&replay, Self.subscribe("x", from: 3))
        #expect(
            texts(three) == [
                #"{"id":"x","type":"next","payload":{"data":{"countdown":3}}}"#, #"{"id":"x","type":"next","payload":{"data":{"countdown":2}}}"#,
                #"{"id":"x","type":"next","payload":{"data":{"countdown":1}}}"#, #"{"id":"x","type":"complete"}"#,
            ])
        // Delays from the subscribe, then from the message before in the operation.
        #expect(three.map { if case .send(_, let delay) = $0.action { delay } else { -1 } } == [10, 101, 100, 1])
        let two = try receive(&replay, Self.subscribe("y", from: 2))
        #expect(two.map(\.lane) == [1, 1, 1, 1])
        #expect(Array(texts(two).prefix(1)) == [#"{"id":"y","type":"next","payload":{"data":{"countdown":2}}}"#])
        // The recorded close comes once every operation has been replayed, after the last one's messages.
        #expect(two.last?.action == .close(code: 1000, reason: "", delayMilliseconds: 300 - 121))
    }

    @Test func twoOperationsWithTheSameDocumentAndVariablesAreServedInRecordedOrder() throws {
        var conversation = recorded
        conversation.messages[3] = message(.client, Self.subscribe("b", from: 2), at: 11)
        var replay = MultiplexedReplay(conversation)
        _ = try receive(&replay, #"{"type":"connection_init"}"#)
        #expect(try receive(&replay, Self.subscribe("1", from: 2)).first?.lane == 1)
        #expect(try receive(&replay, Self.subscribe("2", from: 2)).first?.lane == 2)
    }

    @Test func anOperationTheRecordingDoesNotHaveIsAMissNamingTheNearestRecordedOne() throws {
        var replay = MultiplexedReplay(recorded)
        _ = try receive(&replay, #"{"type":"connection_init"}"#)
        let mismatch = ConversationReplay.Mismatch(expected: recorded.messages[2], operation: "subscription Countdown")
        #expect(throws: mismatch) {
            try receive(&replay, Self.subscribe("x", from: 7))
        }
        #expect(
            mismatch.reason.hasPrefix(#"no recorded operation matches; nearest: subscription Countdown: {"id":"a","type":"subscribe""#), "\(mismatch.reason)")
    }

    @Test func theStopOfAnOperationNeverOpenedIsAMiss() throws {
        var replay = MultiplexedReplay(recorded)
        _ = try receive(&replay, #"{"type":"connection_init"}"#)
        #expect(throws: ConversationReplay.Mismatch(expected: nil)) {
            try receive(&replay, #"{"id":"zz","type":"complete"}"#)
        }
    }

    @Test func jsonRPCResponsesFollowTheirRequestsAndSocketIOAcksTheirEvents() throws {
        var rpc = Conversation(cassette: "dev", url: "http://a.test/rpc", key: "GET /rpc", requestHeaders: [:], subprotocol: nil, extensions: nil)
        rpc.messages = [
            message(.client, #"{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}"#, at: 1),
            message(.client, #"{"jsonrpc":"2.0","id":2,"method":"add","params":[5,5]}"#, at: 2),
            message(.server, #"{"jsonrpc":"2.0","id":2,"result":10}"#, at: 3),
            message(.server, #"{"jsonrpc":"2.0","id":1,"result":3}"#, at: 4),
        ]
        #expect(ConversationOperations(rpc).labels == ["rpc add"])
        var replay = MultiplexedReplay(rpc)
        #expect(texts(try receive(&replay, #"{"jsonrpc":"2.0","id":"k","method":"add","params":[5,5]}"#)) == [#"{"jsonrpc":"2.0","id":"k","result":10}"#])
        #expect(texts(try receive(&replay, #"{"jsonrpc":"2.0","id":40,"method":"add","params":[1,2]}"#)) == [#"{"jsonrpc":"2.0","id":40,"result":3}"#])

        var sio = Conversation(cassette: "dev", url: "http://a.test/socket.io/", key: "GET /socket.io/", requestHeaders: [:], subprotocol: nil, extensions: nil)
        sio.messages = [
            message(.client, #"421["add",1,2]"#, at: 1),
            message(.server, "431[3]", at: 2),
            message(.client, #"42/chat,2["echo",{"x":1}]"#, at: 3),
            message(.server, #"43/chat,2[{"echo":{"x":1}}]"#, at: 4),
        ]
        #expect(ConversationOperations(sio).labels == ["event add", "event /chat echo"])
        var replaySIO = MultiplexedReplay(sio)
        #expect(texts(try receive(&replaySIO, #"42/chat,7["echo",{"x":1}]"#)) == [#"43/chat,7[{"echo":{"x":1}}]"#])
        #expect(texts(try receive(&replaySIO, #"428["add",1,2]"#)) == ["438[3]"])
    }

    @Test func aConversationWithoutOperationsReplaysTurnByTurn() throws {
        var plain = recorded
        plain.messages = [message(.client, #"{"id":7,"method":"add"}"#, at: 1), message(.server, #"{"id":7,"result":3}"#, at: 2)]
        var replay = MultiplexedReplay(plain)
        #expect(!replay.isMultiplexed)
        #expect(texts(try receive(&replay, #"{"id":8,"method":"add"}"#)) == [#"{"id":8,"result":3}"#])
    }
}
