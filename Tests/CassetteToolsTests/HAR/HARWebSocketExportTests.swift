import Foundation
import HTTPTypes
import Testing

@testable import CassetteTools
@testable import WellPlateCore

/// A WebSocket conversation in a HAR file as Chrome's DevTools writes one: the entry of its `101`
/// with `_resourceType: websocket` and `_webSocketMessages` (type, time, opcode, data).
@Suite("HAR export of WebSocket conversations")
struct HARWebSocketExportTests {
    static let recordedAt = Date(timeIntervalSince1970: 1_800_000_000)

    static let conversation = Conversation(
        id: 1, cassette: "dev", url: "http://api.test/chat?room=1", key: "GET /chat?room=1",
        requestHeaders: [HTTPField.Name("Sec-WebSocket-Protocol")!: "chat.v1", .userAgent: "test"], subprotocol: "chat.v1", extensions: nil,
        recordedAt: recordedAt,
        messages: [
            ConversationMessage(direction: .server, kind: .text, payload: Data(#"{"type":"hello"}"#.utf8), offsetMilliseconds: 2.5),
            ConversationMessage(direction: .client, kind: .ping, payload: Data(), offsetMilliseconds: 3),
            ConversationMessage(direction: .client, kind: .binary, payload: Data([0, 1, 0xFF]), offsetMilliseconds: 10),
            ConversationMessage(direction: .server, kind: .close, payload: Data([0x0F, 0xA0]), offsetMilliseconds: 250),
        ],
        end: .closed(by: .server, code: 4000, reason: ""))

    @Test func aConversationIsThe101EntryWithChromesWebSocketMessagesSendAndReceiveInOrder() throws {
        let entry = HARExporter(creatorVersion: "test").entry(Self.conversation)
        #expect(entry.resourceType == "websocket")
        #expect(entry.request.url == "ws://api.test/chat?room=1")
        #expect(entry.request.queryString == [HARNameValue(name: "room", value: "1")])
        #expect(entry.response.status == 101)
        #expect(entry.response.headers.contains(HARNameValue(name: "Sec-WebSocket-Protocol", value: "chat.v1")))
        #expect(entry.comment?.hasSuffix("WebSocket ended: server closed 4000") == true, "\(entry.comment ?? "")")
        // Text as is, binary base64; control frames are not listed, as Chrome lists none.
        #expect(
            entry.webSocketMessages == [
                HARWebSocketMessage(type: "receive", time: 1_800_000_000.0025, opcode: 1, data: #"{"type":"hello"}"#),
                HARWebSocketMessage(type: "send", time: 1_800_000_000.01, opcode: 2, data: "AAH/"),
            ])
    }

    @Test func theFieldsAreWrittenUnderChromesNamesBesideTheRecordingsInRecordedOrder() throws {
        let interaction = Interaction(
            cassette: "dev", method: .get, url: "http://api.test/before", key: "GET /before", requestHeaders: [:], requestBody: nil, statusCode: 200,
            responseHeaders: [:], responseBody: Data(), recordedAt: Self.recordedAt.addingTimeInterval(-1))
        let archive = HARExporter(creatorVersion: "test").archive([interaction], conversations: [Self.conversation])
        #expect(archive.log.entries.map(\.request.url) == ["http://api.test/before", "ws://api.test/chat?room=1"])
        let json = try #require(try JSONSerialization.jsonObject(with: archive.encoded()) as? [String: Any])
        let entries = try #require((json["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries[0]["_webSocketMessages"] == nil)
        #expect(entries[1]["_resourceType"] as? String == "websocket")
        let first = try #require((entries[1]["_webSocketMessages"] as? [[String: Any]])?.first)
        #expect(Set(first.keys) == ["type", "time", "opcode", "data"])
        // A HAR written by Chrome reads back with its messages.
        #expect(try HARArchive.decode(archive.encoded()) == archive)
    }
}

/// Chrome's WebSocket entries read back as conversations, keyed and redacted as recorded ones.
@Suite("HAR import of WebSocket conversations")
struct HARWebSocketImportTests {
    @Test func anExportedConversationImportsWithItsMessagesOffsetsAndEnd() throws {
        let exporter = HARExporter(creatorVersion: "test")
        let archive = exporter.archive([], conversations: [HARWebSocketExportTests.conversation])
        let result = HARImporter(cassette: "dev").convert(try HARArchive.decode(archive.encoded()))
        #expect(result.interactions.isEmpty)
        let conversation = try #require(result.conversations.first)
        #expect(conversation.url == "http://api.test/chat?room=1")
        #expect(conversation.key == HARWebSocketExportTests.conversation.key)
        #expect(conversation.subprotocol == "chat.v1")
        #expect(conversation.end == .closed(by: .server, code: 4000, reason: ""))
        #expect(conversation.messages.map(\.direction) == [.server, .client])
        #expect(conversation.messages.map(\.kind) == [.text, .binary])
        #expect(conversation.messages[1].payload == Data([0, 1, 0xFF]))
        #expect(abs(conversation.messages[1].offsetMilliseconds - 10) < 0.01)
    }

    @Test func aBrowsersEntryIsMarkedCutAndATokenInAMessageIsRedacted() throws {
        var entry = HARExporter(creatorVersion: "test").entry(HARWebSocketExportTests.conversation)
        entry.comment = nil
        entry.webSocketMessages = [
            HARWebSocketMessage(type: "send", time: 1_800_000_000.5, opcode: 1, data: #"{"type":"auth","token":"sk-live-abc123"}"#),
            HARWebSocketMessage(type: "receive", time: 1_800_000_000.6, opcode: 9, data: ""),
        ]
        let result = HARImporter(cassette: "dev").convert(HARArchive(log: HARLog(creator: HARCreator(name: "Chrome", version: "1"), entries: [entry])))
        let conversation = try #require(result.conversations.first)
        #expect(conversation.end == .cut)
        #expect(conversation.messages.count == 1)
        #expect(String(decoding: conversation.messages[0].payload, as: UTF8.self) == #"{"type":"auth","token":"REDACTED"}"#)
        #expect(result.warnings.map(\.reason) == ["1 WebSocket message with an opcode other than text or binary, or bad base64, left out"])
    }

    @Test func aTokenShapeAuditKnowsIsReplacedInAnImportedMessageAndEveryMessageThatRepeatsIt() throws {
        let token = "ghp_" + String(repeating: "a1B2c3D4e5", count: 4).prefix(36)
        var entry = HARExporter(creatorVersion: "test").entry(HARWebSocketExportTests.conversation)
        entry.webSocketMessages = [
            HARWebSocketMessage(type: "send", time: 1_800_000_000.5, opcode: 1, data: "login \(token)"),
            HARWebSocketMessage(type: "receive", time: 1_800_000_000.6, opcode: 1, data: #"{"welcome": "\#(token)"}"#),
        ]
        let result = HARImporter(cassette: "dev").convert(HARArchive(log: HARLog(creator: HARCreator(name: "Chrome", version: "1"), entries: [entry])))
        let messages = try #require(result.conversations.first).messages.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(messages == ["login REDACTED", #"{"welcome": "REDACTED"}"#])
    }

    @Test func theEndIsReadFromTheCommentCassetteWrites() {
        #expect(
            HARImporter.end(fromComment: #"cassette dev, key GET /chat, sequence 0, WebSocket ended: server closed 4000 "server says bye""#)
                == .closed(by: .server, code: 4000, reason: "server says bye"))
        #expect(HARImporter.end(fromComment: "WebSocket ended: client closed") == .closed(by: .client, code: nil, reason: ""))
        #expect(HARImporter.end(fromComment: "WebSocket ended: server dropped") == .dropped(by: .server))
        #expect(HARImporter.end(fromComment: "WebSocket ended: cut") == .cut)
        // A gRPC call the upstream reset keeps its RST_STREAM code through the summary.
        for reset in [HTTP2ResetCode(rawValue: 2), HTTP2ResetCode(rawValue: 0x2a)] {
            let end = ConversationEnd.dropped(by: .server, reset: reset)
            #expect(HARImporter.end(fromComment: "WebSocket ended: \(end.summary)") == end, "\(end.summary)")
        }
        #expect(HARImporter.end(fromComment: nil) == .cut)
    }
}
