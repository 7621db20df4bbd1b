import Foundation
import Testing

@testable import WellPlateCore

/// Socket.IO acknowledgement ids (`421["add",1,2]` answered by `431[3]`): found in a recording as
/// echoed values, left out of matching, and copied from the live client's packet into the acks.
@Suite("Socket.IO acknowledgement ids")
struct SocketIOAckTests {
    private let keyer = ReplayKeyer(redactor: .default, rules: .default)

    private var recorded: Conversation {
        var conversation = Conversation(
            cassette: "dev", url: "http://a.test/socket.io/", key: "GET /socket.io/", requestHeaders: [:], subprotocol: nil, extensions: nil)
        let exchange: [(ConversationSide, String)] = [
            (.server, #"0{"sid":"abc"}"#), (.client, "40"), (.server, #"40{"sid":"def"}"#),
            (.client, #"421["add",1,2]"#), (.server, "431[3]"),
            (.client, #"42["note","hello"]"#), (.server, #"42["news",{"heard":"hello"}]"#),
            (.client, #"422["add",2,10]"#), (.server, "432[12]"),
            (.client, #"42/chat,1["echo",{"x":1}]"#), (.server, #"43/chat,1[{"echo":{"x":1}}]"#),
        ]
        conversation.messages = exchange.enumerated().map { index, message in
            ConversationMessage(direction: message.0, kind: .text, payload: Data(message.1.utf8), offsetMilliseconds: Double(index))
        }
        conversation.end = .closed(by: .client, code: 1000, reason: "")
        return conversation
    }

    private func receive(_ replay: inout ConversationReplay, _ live: String) throws(ConversationReplay.Mismatch) -> [String] {
        try replay.receive(kind: .text, payload: Data(live.utf8)) { [keyer] in keyer.messageMatches(live: $0, recorded: $1, secrets: SecretValues()) }
            .compactMap { action in
                guard case .send(let message, _) = action else { return nil }
                return String(decoding: message.payload, as: UTF8.self)
            }
    }

    @Test func packetsAreReadWithTheirNamespaceAckIdAndJSON() throws {
        let packet = try #require(SocketIOPacket(Data(#"43/chat,17[{"a":1}]"#.utf8)))
        #expect(packet.header == 0..<8)
        #expect(packet.ackID == 8..<10)
        #expect(SocketIOPacket(Data(#"42["news"]"#.utf8))?.ackID == nil)
        // The Engine.IO open packet, a Socket.IO connect and plain JSON are not events or acks.
        #expect(SocketIOPacket(Data(#"0{"sid":"abc"}"#.utf8)) == nil)
        #expect(SocketIOPacket(Data(#"40{"sid":"abc"}"#.utf8)) == nil)
        #expect(SocketIOPacket(Data(#"[1, 2]"#.utf8)) == nil)
    }

    @Test func theAckIdIsFoundAsAnEchoedValue() {
        #expect(EchoedValues(recorded).paths.contains(EchoedValues.ackPath))
    }

    @Test func acksCarryTheLiveClientsIdsInEachNamespaceAndTheJSONMatchesCanonically() throws {
        var replay = ConversationReplay(recorded)
        _ = replay.start()
        #expect(try receive(&replay, "40") == [#"40{"sid":"def"}"#])
        #expect(try receive(&replay, #"42100["add", 1, 2]"#) == ["43100[3]"])
        #expect(try receive(&replay, #"42["note","hello"]"#) == [#"42["news",{"heard":"hello"}]"#])
        #expect(try receive(&replay, #"42101["add",2,10]"#) == ["43101[12]"])
        #expect(try receive(&replay, #"42/chat,150["echo",{"x":1}]"#) == [#"43/chat,150[{"echo":{"x":1}}]"#])
    }

    @Test func aChangedArgumentAnotherNamespaceOrAMissingAckIdIsStillAMismatch() throws {
        for live in [#"42100["add",1,3]"#, #"42/other,100["add",1,2]"#, #"42["add",1,2]"#] {
            var replay = ConversationReplay(recorded)
            _ = replay.start()
            _ = try receive(&replay, "40")
            #expect(throws: ConversationReplay.Mismatch.self, "\(live)") { try receive(&replay, live) }
        }
    }
}
