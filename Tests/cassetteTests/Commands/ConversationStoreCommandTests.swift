import Foundation
import TestSupport
import Testing
import WellPlateCore

/// `delete`, `prune`, `merge` and `import` with WebSocket conversations, on stores built through
/// the core's API (these are store operations; the recorded conversations of real peers are in
/// `ConversationScanCommandTests`).
@Suite("delete, prune, merge and import of WebSocket conversations")
final class ConversationStoreCommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// A conversation of `path`: the client's and the server's messages in turn, closed by the server.
    static func conversation(_ path: String, _ messages: [String], recordedAt: Date = Recordings.recordedAt) -> Conversation {
        Conversation(
            cassette: "dev", url: "http://127.0.0.1:8081\(path)", key: "GET \(path)", requestHeaders: [:], subprotocol: "chat.v1", extensions: nil,
            recordedAt: recordedAt,
            messages: messages.enumerated().map { index, text in
                ConversationMessage(direction: index % 2 == 0 ? .client : .server, kind: .text, payload: Data(text.utf8), offsetMilliseconds: Double(index))
            }, end: .closed(by: .server, code: 1000, reason: "done"))
    }

    /// A store at `name` with `interactions` and then `conversations`, each at the next sequence of its key.
    func makeStore(_ name: String, interactions: [Interaction] = [Recordings.make(.get, "/api/a")], conversations: [Conversation]) async throws {
        try await workspace.record(interactions, cassettes: [CassetteInfo(name: "dev")], into: name)
        let store = try await CassetteStore.open(path: workspace.path(name), access: .readWrite)
        for conversation in conversations { _ = try await store.beginConversation(conversation) }
        try await store.close()
    }

    func conversations(in name: String) async throws -> [Conversation] {
        let store = try await CassetteStore.open(path: workspace.path(name), access: .readOnly)
        let conversations = try await store.conversations(cassette: nil)
        try await store.close()
        return conversations
    }

    @Test func deleteFindsAKeyRecordedOnlyAsAConversationAndRemovesItWithItsMessages() async throws {
        try await makeStore("ws.db", conversations: [Self.conversation("/chat", ["hi", "hello"]), Self.conversation("/chat", ["hi", "again"])])
        let result = try await workspace.run("delete", "GET /chat", "--db", "ws.db")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Deleted 2 WebSocket conversations of GET /chat from ws.db.\n", "\(result)")
        #expect(try await conversations(in: "ws.db").isEmpty)
        #expect(try await workspace.count(in: "ws.db") == 1)
        // Nothing left of that key: a clear error, and the other recording stays.
        let again = try await workspace.run("delete", "GET /chat", "--db", "ws.db")
        #expect(again.status != 0, "\(again)")
        #expect(again.stderr.contains("nothing deleted"), "\(again)")
        #expect(try await workspace.count(in: "ws.db") == 1)
    }

    @Test func deletingACassetteCountsItsConversations() async throws {
        try await makeStore("ws.db", conversations: [Self.conversation("/chat", ["hi", "hello"])])
        let result = try await workspace.run("delete", "--cassette", "dev", "--all", "--db", "ws.db")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Deleted cassette dev (1 recording and 1 WebSocket conversation) from ws.db.\n", "\(result)")
        #expect(try await conversations(in: "ws.db").isEmpty)
    }

    @Test func pruneListsAndDeletesConversationsRecordedBeforeTheCutOff() async throws {
        let old = Date(timeIntervalSinceNow: -40 * 86_400)
        try await makeStore(
            "ws.db", interactions: [Recordings.make(.get, "/api/a", recordedAt: Date())],
            conversations: [Self.conversation("/old", ["hi", "hello"], recordedAt: old), Self.conversation("/new", ["hi", "hello"], recordedAt: Date())])
        let dryRun = try await workspace.run("prune", "--older-than", "30", "--dry-run", "--db", "ws.db")
        #expect(dryRun.status == 0, "\(dryRun)")
        #expect(dryRun.stdout.hasPrefix("Would delete 1 WebSocket conversation older than 30 days"), "\(dryRun)")
        #expect(dryRun.stdout.contains("  dev  WebSocket GET /old  [0]  "), "\(dryRun)")
        #expect(try await conversations(in: "ws.db").count == 2)
        let result = try await workspace.run("prune", "--older-than", "30", "--db", "ws.db")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Deleted 1 WebSocket conversation older than 30 days"), "\(result)")
        #expect(try await conversations(in: "ws.db").map(\.key) == ["GET /new"])
        #expect(try await workspace.count(in: "ws.db") == 1)
    }

    @Test func mergeKeepsEachSidesConversationsWithTheirMessagesAndSequences() async throws {
        let shared = Self.conversation("/chat", ["hi", "hello"])
        try await makeStore("base.db", conversations: [shared])
        try await makeStore("ours.db", conversations: [shared, Self.conversation("/chat", ["hi", "again"])])
        try await makeStore("theirs.db", conversations: [shared, Self.conversation("/feed", ["subscribe", "tick"])])
        let result = try await workspace.run("merge", "base.db", "ours.db", "theirs.db")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Merged ours.db: 1 recording and 3 WebSocket conversations, 1 taken from theirs.\n", "\(result)")
        let merged = try await conversations(in: "ours.db")
        #expect(merged.map { "\($0.key) #\($0.sequence)" } == ["GET /chat #0", "GET /chat #1", "GET /feed #0"])
        #expect(merged[1].messages.map { String(decoding: $0.payload, as: UTF8.self) } == ["hi", "again"])
        #expect(merged[2].messages.map(\.direction) == [.client, .server])
        #expect(merged[2].end == .closed(by: .server, code: 1000, reason: "done"))
    }

    @Test func aConversationChangedDifferentlyOnBothSidesIsAConflictAndOursIsLeftAlone() async throws {
        try await makeStore("base.db", conversations: [Self.conversation("/chat", ["hi", "hello"])])
        try await makeStore("ours.db", conversations: [Self.conversation("/chat", ["hi", "hello from ours"])])
        try await makeStore("theirs.db", conversations: [Self.conversation("/chat", ["hi", "hello from theirs"])])
        let before = try StoreFingerprint(of: workspace.path("ours.db"))
        let result = try await workspace.run("merge", "base.db", "ours.db", "theirs.db")
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("conflict: dev GET /chat #0: WebSocket conversation changed differently on both sides"), "\(result)")
        #expect(try StoreFingerprint(of: workspace.path("ours.db")) == before)
        let preferred = try await workspace.run("merge", "base.db", "ours.db", "theirs.db", "--prefer", "theirs")
        #expect(preferred.status == 0, "\(preferred)")
        let merged = try await conversations(in: "ours.db")
        #expect(merged.first?.messages.last?.payload == Data("hello from theirs".utf8))
    }

    @Test func aReRecordingThatDiffersOnlyInOffsetsAndTimeIsNoChange() async throws {
        try await makeStore("base.db", conversations: [Self.conversation("/chat", ["hi", "hello"])])
        var again = Self.conversation("/chat", ["hi", "hello"], recordedAt: Date())
        again.messages[1].offsetMilliseconds = 42
        try await makeStore("ours.db", conversations: [again])
        try await makeStore("theirs.db", conversations: [Self.conversation("/chat", ["hi", "hello"]), Self.conversation("/feed", ["a", "b"])])
        let result = try await workspace.run("merge", "base.db", "ours.db", "theirs.db")
        #expect(result.status == 0, "\(result)")
        #expect(try await conversations(in: "ours.db").map(\.key) == ["GET /chat", "GET /feed"])
    }

    @Test func importingAHAROfConversationsAloneCountsThemInItsSummary() async throws {
        try await makeStore("source.db", interactions: [], conversations: [Self.conversation("/chat", ["hi", "hello"])])
        let exported = try await workspace.run("export", "--har", "ws.har", "--db", "source.db")
        #expect(exported.status == 0, "\(exported)")
        let imported = try await workspace.run("import", "ws.har", "--db", "imported.db")
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout == "Imported 1 WebSocket conversation (1 key) from ws.har into cassette dev of imported.db.\n", "\(imported)")
        #expect(try await conversations(in: "imported.db").map(\.key) == ["GET /chat"])
        // Again: the key has its conversation, so it is skipped and said so.
        let again = try await workspace.run("import", "ws.har", "--db", "imported.db")
        #expect(again.status == 0, "\(again)")
        #expect(
            again.stdout.contains("skipped 1 WebSocket conversation of keys the cassette already has conversations of (--mode all replaces them)"), "\(again)")
        #expect(again.stdout.contains("Imported 0 WebSocket conversations (0 keys) from ws.har"), "\(again)")
        #expect(try await conversations(in: "imported.db").count == 1)
    }
}
