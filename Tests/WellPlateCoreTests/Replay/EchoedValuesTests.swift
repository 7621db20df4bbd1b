import Foundation
import Testing

@testable import WellPlateCore

/// Values clients choose and servers echo (request ids), found in a recorded conversation and
/// copied from the live client message into the replayed replies.
@Suite("Echoed client-chosen values")
struct EchoedValuesTests {
    private func conversation(_ exchange: [(ConversationSide, String)]) -> Conversation {
        var conversation = Conversation(
            cassette: "dev", url: "http://a.test/rpc", key: "GET /rpc", requestHeaders: [:], subprotocol: nil, extensions: nil)
        conversation.messages = exchange.enumerated().map { index, message in
            ConversationMessage(direction: message.0, kind: .text, payload: Data(message.1.utf8), offsetMilliseconds: Double(index))
        }
        conversation.end = .closed(by: .client, code: 1000, reason: "")
        return conversation
    }

    private let keyer = ReplayKeyer(redactor: .default, rules: .default)

    private func receive(_ replay: inout ConversationReplay, _ live: String) throws(ConversationReplay.Mismatch) -> [String] {
        try replay.receive(kind: .text, payload: Data(live.utf8)) { [keyer] in keyer.messageMatches(live: $0, recorded: $1, secrets: SecretValues()) }
            .compactMap { action in
                guard case .send(let message, _) = action else { return nil }
                return String(decoding: message.payload, as: UTF8.self)
            }
    }

    private func receive(_ replay: inout MultiplexedReplay, _ live: String) throws(ConversationReplay.Mismatch) -> [String] {
        var steps: [MultiplexedReplay.Step] = []
        try replay.receive(kind: .text, payload: Data(live.utf8), into: &steps) { [keyer] in
            keyer.messageMatches(live: $0, recorded: $1, secrets: SecretValues())
        }
        return steps.compactMap { step in
            guard case .send(let message, _) = step.action else { return nil }
            return String(decoding: message.payload, as: UTF8.self)
        }
    }

    private var jsonRPC: Conversation {
        conversation([
            (.client, #"{"jsonrpc": "2.0", "id": 1, "method": "add", "params": [1, 1]}"#),
            (.server, #"{"jsonrpc": "2.0", "id": 1, "result": 2}"#),
            (.client, #"{"jsonrpc": "2.0", "id": 2, "method": "add", "params": [2, 2]}"#),
            (.server, #"{"jsonrpc": "2.0", "id": 2, "result": 4}"#),
        ])
    }

    @Test func aJSONRPCIdIsFoundAndAConstantOfEveryRequestIsNot() {
        #expect(EchoedValues(jsonRPC).paths == [[.key("id")]])
    }

    @Test func repliesCarryTheLiveIdsWithEveryOtherByteAsRecorded() throws {
        var replay = ConversationReplay(jsonRPC)
        #expect(try receive(&replay, #"{"jsonrpc":"2.0","id":101,"method":"add","params":[1,1]}"#) == [#"{"jsonrpc": "2.0", "id": 101, "result": 2}"#])
        #expect(try receive(&replay, #"{"jsonrpc":"2.0","id":"b-2","method":"add","params":[2,2]}"#) == [#"{"jsonrpc": "2.0", "id": "b-2", "result": 4}"#])
    }

    @Test func everyConnectionTakingARecordedConversationGetsItsEchoedValuesAndItsOwnReplayFromTheStart() throws {
        var second = jsonRPC
        second.sequence = 1
        second.messages[1].payload = Data(#"{"jsonrpc": "2.0", "id": 1, "result": 20}"#.utf8)
        let recorded = RecordedConversations([jsonRPC, second])
        var first = try #require(recorded.take("GET /rpc"))
        // JSON-RPC 2.0 requests are operations, each replayed by its own id.
        #expect(first.isMultiplexed)
        #expect(try receive(&first, #"{"jsonrpc":"2.0","id":7,"method":"add","params":[1,1]}"#) == [#"{"jsonrpc": "2.0", "id": 7, "result": 2}"#])
        // The next connection gets the next conversation, then the last one again, each from its start.
        for _ in 0..<3 {
            var replay = try #require(recorded.take("GET /rpc"))
            #expect(try receive(&replay, #"{"jsonrpc":"2.0","id":8,"method":"add","params":[1,1]}"#) == [#"{"jsonrpc": "2.0", "id": 8, "result": 20}"#])
        }
        #expect(recorded.take("GET /other") == nil)
    }

    @Test func aChangedFieldThatIsNotAnIdIsStillAMismatch() {
        var replay = ConversationReplay(jsonRPC)
        #expect(throws: ConversationReplay.Mismatch.self) {
            try receive(&replay, #"{"jsonrpc": "2.0", "id": 101, "method": "add", "params": [1, 3]}"#)
        }
    }

    @Test func aGraphQLWSSubscriptionIdReachesEachOfItsReplies() throws {
        let recorded = conversation([
            (.client, #"{"type":"connection_init"}"#),
            (.server, #"{"type":"connection_ack"}"#),
            (.client, #"{"id":"1","type":"subscribe","payload":{"query":"subscription { score }"}}"#),
            (.server, #"{"id":"1","type":"next","payload":{"data":{"score":1}}}"#),
            (.server, #"{"id":"1","type":"complete"}"#),
        ])
        #expect(EchoedValues(recorded).paths == [[.key("id")]])
        var replay = ConversationReplay(recorded)
        _ = replay.start()
        #expect(try receive(&replay, #"{"type":"connection_init"}"#) == [#"{"type":"connection_ack"}"#])
        let replies = try receive(&replay, #"{"id":"f81d4fae","type":"subscribe","payload":{"query":"subscription { score }"}}"#)
        #expect(replies == [#"{"id":"f81d4fae","type":"next","payload":{"data":{"score":1}}}"#, #"{"id":"f81d4fae","type":"complete"}"#])
    }

    @Test func anEchoServerRepeatingWholeMessagesHasNoIds() {
        let recorded = conversation([
            (.client, #"{"text":"hi","n":1}"#), (.server, #"{"text":"hi","n":1}"#),
            (.client, #"{"text":"there","n":2}"#), (.server, #"{"text":"there","n":2}"#),
        ])
        #expect(EchoedValues(recorded).isEmpty)
    }

    @Test func textThatIsNotJSONAndBinaryMessagesAreLeftAsRecorded() throws {
        let recorded = conversation([(.client, "ping 1"), (.server, "pong 1")])
        #expect(EchoedValues(recorded).isEmpty)
        var replay = ConversationReplay(recorded)
        #expect(try receive(&replay, "ping 1") == ["pong 1"])
    }
}
