import Foundation
import TestSupport
import Testing

@testable import WellPlateCore

/// Schema 6's WebSocket conversations: stored beside the interactions, keyed like them, read back
/// whole, left `cut` when their end never came, deleted with their cassette; a store from before
/// opens read-only with none and is upgraded by the first write.
@Suite("WebSocket conversations in the store")
final class ConversationStoreTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "conversations")
    }

    private func conversation(cassette: String = "dev") -> Conversation {
        Conversation(
            cassette: cassette, url: "http://a.test/chat", key: "GET /chat", requestHeaders: [.authorization: "REDACTED"], subprotocol: "chat.v1",
            extensions: nil, recordedAt: Date(timeIntervalSince1970: 1_760_000_000))
    }

    private let messages = [
        ConversationMessage(direction: .server, kind: .text, payload: Data(#"{"type":"hello"}"#.utf8), offsetMilliseconds: 1.5),
        ConversationMessage(direction: .client, kind: .binary, payload: Data([0, 1, 2, 255]), fragments: [2, 2], offsetMilliseconds: 10),
        ConversationMessage(direction: .server, kind: .close, payload: Data([0x0f, 0xa0]) + Data("bye".utf8), offsetMilliseconds: 20.25),
    ]

    @Test func aConversationIsStoredInBatchesAndReadBackWithItsMessagesAndEnd() async throws {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        let begun = try await store.beginConversation(conversation())
        let id = try #require(begun.id)
        #expect(begun.sequence == 0)
        try await store.appendMessages(Array(messages[0..<2]), toConversation: id, from: 0)
        try await store.appendMessages(Array(messages[2...]), toConversation: id, from: 2)
        try await store.endConversation(id, .closed(by: .server, code: 4000, reason: "bye"))
        let again = try await store.beginConversation(conversation())
        #expect(again.sequence == 1)
        let read = try await store.conversations(cassette: "dev")
        #expect(read.count == 2)
        var expected = conversation()
        expected.id = id
        expected.messages = messages
        expected.end = .closed(by: .server, code: 4000, reason: "bye")
        #expect(read[0] == expected)
        // Never ended: cut, with what it had.
        #expect(read[1].end == .cut)
        #expect(try await store.conversationCounts() == ["dev": 2])
        try await store.delete(cassette: "dev")
        #expect(try await store.conversations(cassette: nil).isEmpty)
        try await store.close()
    }

    @Test func importedConversationsAreStoredWholeAndKeysWithConversationsAreKeptOrReplaced() async throws {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        _ = try await store.beginConversation(conversation())
        var imported = conversation()
        imported.messages = messages
        imported.end = .closed(by: .client, code: 1000, reason: "")
        var other = imported
        other.key = "GET /other"
        // Missing: the key that has a conversation is left alone, the new one stored whole.
        #expect(try await store.importConversations([imported, other], replacing: false) == 1)
        var read = try await store.conversations(cassette: "dev")
        #expect(read.map(\.key) == ["GET /chat", "GET /other"])
        #expect(read[1].messages == messages)
        #expect(read[1].end == .closed(by: .client, code: 1000, reason: ""))
        // All: the key's conversations are replaced by the imported ones, in order.
        #expect(try await store.importConversations([imported, imported], replacing: true) == 2)
        read = try await store.conversations(cassette: "dev").filter { $0.key == "GET /chat" }
        #expect(read.map(\.sequence) == [0, 1])
        #expect(read.allSatisfy { $0.messages == messages })
        try await store.close()
    }

    @Test func aStoreFromBeforeConversationsHasNoneReadOnlyAndIsUpgradedByTheFirstWrite() async throws {
        let connection = try SQLiteConnection(path: directory.path(), mode: .readWriteCreate)
        try SQLiteMigrator(migrations: Array(CassetteSchema.migrator.migrations.prefix(5))).migrate(connection)
        try connection.close()
        let reader = try await CassetteStore.open(path: directory.path(), access: .readOnly)
        #expect(try await reader.conversations(cassette: nil).isEmpty)
        try await reader.close()
        #expect(try SQLiteConnection(path: directory.path(), mode: .readOnly).userVersion == 5)
        let writer = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        _ = try await writer.beginConversation(conversation())
        #expect(try await writer.conversations(cassette: "dev").count == 1)
        try await writer.close()
        #expect(try SQLiteConnection(path: directory.path(), mode: .readOnly).userVersion == CassetteSchema.migrator.latestVersion)
    }
}
