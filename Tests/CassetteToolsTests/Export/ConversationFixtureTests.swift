import Foundation
import Testing

@testable import CassetteTools
@testable import WellPlateCore

/// A WebSocket conversation as the fixture file `export --fixtures` writes: named after its path,
/// messages as text or base64, the end spelled out.
@Suite("WebSocket conversation fixtures")
struct ConversationFixtureTests {
    private func conversation(_ key: String, url: String = "http://a.test/chat") -> Conversation {
        Conversation(cassette: "dev", url: url, key: key, requestHeaders: [:], subprotocol: nil, extensions: nil)
    }

    @Test func filesAreNamedAfterThePathWithASuffixForLaterConnectionsAndTheHostOnAMultiHostCassette() {
        let names = ConversationFixture.fileNames([
            conversation("GET /chat"), conversation("GET /chat"), conversation("GET /v1/live?room=1"), conversation("GET /"),
            conversation("GET http://a.test:8080/chat"),
        ])
        #expect(names == ["websocket/chat.json", "websocket/chat_2.json", "websocket/v1_live.json", "websocket/root.json", "websocket/a_test_8080_chat.json"])
    }

    @Test func textStaysTextBinaryIsBase64AndTheEndIsSpelledOut() throws {
        var recorded = conversation("GET /chat")
        recorded.messages = [
            ConversationMessage(direction: .server, kind: .text, payload: Data("hi".utf8), offsetMilliseconds: 1),
            ConversationMessage(direction: .client, kind: .binary, payload: Data([0xFF, 0]), fragments: [1, 1], offsetMilliseconds: 2),
        ]
        recorded.end = .dropped(by: .server)
        let fixture = ConversationFixture(recorded)
        #expect(fixture.url == "ws://a.test/chat")
        #expect(fixture.messages[0].text == "hi" && fixture.messages[0].base64 == nil && fixture.messages[0].fragments == nil)
        #expect(fixture.messages[1].base64 == "/wA=" && fixture.messages[1].fragments == [1, 1])
        #expect(fixture.end == ConversationFixture.End(kind: "dropped", by: "server"))
        let data = try fixture.encoded()
        #expect(data.last == UInt8(ascii: "\n"))
        #expect(try JSONDecoder().decode(ConversationFixture.self, from: data) == fixture)
    }
}
