import Foundation
import Testing

@testable import WellPlateCore

/// A recorded conversation replayed turn by turn, decided without a socket: what goes out on
/// open, what answers a matching client message, and what a mismatch gets.
@Suite("Conversation replay, turn by turn")
struct ConversationReplayTests {
    private func message(_ direction: ConversationSide, _ kind: ConversationMessage.Kind, _ text: String, at offset: Double) -> ConversationMessage {
        ConversationMessage(direction: direction, kind: kind, payload: Data(text.utf8), offsetMilliseconds: offset)
    }

    private var recorded: Conversation {
        var conversation = Conversation(
            cassette: "dev", url: "http://a.test/chat", key: "GET /chat", requestHeaders: [:], subprotocol: nil, extensions: nil)
        conversation.messages = [
            message(.server, .text, "hello", at: 2),
            message(.client, .text, #"{"id":1,"q":"a"}"#, at: 10),
            message(.server, .text, #"{"id":1,"r":"b"}"#, at: 12),
            message(.server, .pong, "", at: 13),
            message(.server, .text, "push", at: 212),
            message(.client, .ping, "", at: 300),
            message(.client, .text, "bye", at: 400),
            message(.server, .close, "\u{0f}\u{a0}bye", at: 401),
        ]
        conversation.end = .closed(by: .server, code: 4000, reason: "bye")
        return conversation
    }

    private let keyer = ReplayKeyer(redactor: .default, rules: .default)

    /// What `replay` does with the live client message `live`.
    private func receive(
        _ replay: inout ConversationReplay, _ kind: ConversationMessage.Kind = .text, _ live: String
    ) throws(ConversationReplay.Mismatch)
        -> [ConversationReplay.Action]
    {
        try replay.receive(kind: kind, payload: Data(live.utf8)) { [keyer] in keyer.messageMatches(live: $0, recorded: $1, secrets: SecretValues()) }
    }

    @Test func serverMessagesBeforeTheFirstClientMessageGoOutOnOpenAndRepliesFollowTheirMatchWithRecordedDelays() throws {
        var replay = ConversationReplay(recorded)
        #expect(replay.start() == [.send(recorded.messages[0], delayMilliseconds: 2)])
        // JSON matches as canonical JSON: other spacing and key order.
        let answer = try receive(&replay, .text, #"{ "q": "a", "id": 1 }"#)
        #expect(answer == [.send(recorded.messages[2], delayMilliseconds: 2), .send(recorded.messages[4], delayMilliseconds: 200)])
        let end = try receive(&replay, .text, "bye")
        #expect(end == [.close(code: 4000, reason: "bye", delayMilliseconds: 1)])
        #expect(replay.isFinished)
    }

    @Test func aChangedClientMessageIsAMismatchNamingTheExpectedMessageInAtMost123Bytes() throws {
        var replay = ConversationReplay(recorded)
        _ = replay.start()
        #expect(throws: ConversationReplay.Mismatch(expected: recorded.messages[1])) {
            try receive(&replay, .text, #"{"id":1,"q":"CHANGED"}"#)
        }
        let long = ConversationReplay.Mismatch(expected: message(.client, .text, String(repeating: "é", count: 300), at: 0))
        #expect(long.reason.utf8.count <= 123)
        #expect(long.reason.hasPrefix("expected text message: éé"))
    }

    @Test func aBinaryMessageNeverMatchesARecordedTextMessage() {
        var replay = ConversationReplay(recorded)
        _ = replay.start()
        #expect(throws: ConversationReplay.Mismatch.self) {
            try receive(&replay, .binary, #"{"id":1,"q":"a"}"#)
        }
    }

    @Test func aSecretInALiveMessageMatchesItsRedactedRecording() {
        var secrets = SecretValues()
        let stored = keyer.redactedMessage(Data(#"{"type":"auth","token":"tok-123456789"}"#.utf8), secrets: &secrets)
        #expect(String(decoding: stored, as: UTF8.self) == #"{"type":"auth","token":"REDACTED"}"#)
        #expect(secrets.values.contains("tok-123456789"))
        #expect(keyer.messageMatches(live: Data(#"{"type":"auth","token":"another-token-987"}"#.utf8), recorded: stored, secrets: SecretValues()))
    }
}
