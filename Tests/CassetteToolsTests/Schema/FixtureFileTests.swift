import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `FixtureFile.all(in:)`: which files of a fixtures directory are fixtures, and their names.
@Suite("fixture files of a directory")
struct FixtureFileTests {
    @Test func findsJSONFilesInSubfoldersAndSkipsTheRegistrySchemasAndHiddenFiles() async throws {
        let names = try await withFixturesDirectory([
            "mock_api_health_get.json": "{}",
            "users/list.json": "[]",
            "users/deep/detail.json": #"{"id":1}"#,
            "registry.json": #"{"version":1,"routes":[]}"#,
            "users/registry.json": "{}",
            "mock_api_health_get.schema.json": "{}",
            ".hidden.json": "{}",
            ".git/config.json": "{}",
            "notes.txt": "not a fixture",
        ]) { directory in
            try FixtureFile.all(in: directory).map(\.name)
        }
        #expect(names == ["mock_api_health_get", "users/deep/detail", "users/list", "users/registry"])
    }

    /// `export --fixtures` writes WebSocket conversations beside the responses; a drift check
    /// took them for fixtures no recording matches (`(no recording)` in the Drift view).
    @Test func skipsTheWebSocketConversationsExportWritesButNotAResponseThatLooksLikeOne() async throws {
        var conversation = Conversation(cassette: "dev", url: "http://a.test/chat", key: "GET /chat", requestHeaders: [:], subprotocol: nil, extensions: nil)
        conversation.messages = [ConversationMessage(direction: .server, kind: .text, payload: Data(#"{"type": "hello"}"#.utf8), offsetMilliseconds: 1)]
        conversation.end = .closed(by: .server, code: 4000, reason: "bye")
        let written = String(decoding: try ConversationFixture(conversation).encoded(), as: UTF8.self)
        let names = try await withFixturesDirectory([
            "mock_chat_get.json": #"{"messages": [{"text": "hi"}], "end": {"kind": "closed"}}"#,
            "websocket/chat.json": written,
        ]) { directory in
            try FixtureFile.all(in: directory).map(\.name)
        }
        #expect(names == ["mock_chat_get"])
    }

    @Test func aFileThatIsNotJSONIsAnErrorWithItsLineAndColumn() async throws {
        let error = try await withFixturesDirectory(["good.json": "{}", "sub/bad.json": "{\n  \"a\": 1,\n  \"b\" 2\n}"]) { directory in
            #expect(throws: MockDataError.self) { try FixtureFile.all(in: directory) }
        }
        let failure = try #require(error)
        #expect(failure.kind == .invalidJSON)
        #expect(failure.fixture == "sub/bad")
        #expect(failure.line == 3)
        #expect(failure.column == 7)
    }
}
