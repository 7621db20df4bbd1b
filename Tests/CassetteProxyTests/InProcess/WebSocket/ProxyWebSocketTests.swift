import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore

/// WebSocket conversations through `cassette record` and `cassette replay` (in this process),
/// between real peers on the PyPI `websockets` package: recorded from a live upstream, then
/// replayed turn by turn with the upstream stopped.
@Suite("WebSocket conversations through the proxy")
final class ProxyWebSocketTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("ws.db") }
    static let token = "sk-live-token-1234567890"

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func aRecordedConversationReplaysOfflineWithTheSameMessagesInOrderAndTheSameClose() async throws {
        let recorded = try await WebSocketPeers.recordChatInProcess(store: store)
        #expect(recorded.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(recorded)")
        #expect(recorded.count == 8, "\(recorded)")
        // The upstream is stopped: the replay has only the store.
        let replayed = try await withInProcessReplayer(store: store) { replayer in
            try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat")
        }
        #expect(replayed == recorded)
    }

    @Test func theClientsAnswerToTheServersCloseIsRecordedHoweverLateItComes() async throws {
        // The wsproto client answers the server's close 500 ms late: the recorder used to stop
        // writing at the first close, so the answer was stored only when it came quickly.
        let recorded = try await WebSocketPeers.recordInProcess(store: store) { recorder, _ in
            try await WebSocketPeers.wsprotoClient("ws://127.0.0.1:\(recorder.port)/chat", script: "slow-close")
        }
        #expect(recorded.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(recorded)")
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        let closes = conversation.messages.filter { $0.kind == .close }.map { "\($0.direction.rawValue) \($0.preview())" }
        #expect(closes == ["server 4000 server says bye", "client 4000 server says bye"], "\(conversation.messages.map(\.kind))")
        #expect(conversation.end == .closed(by: .server, code: 4000, reason: "server says bye"))
    }

    @Test func aTokenInAMessageNeverReachesTheStoreAndTheLiveTokenStillMatches() async throws {
        _ = try await WebSocketPeers.recordChatInProcess(store: store)
        #expect(try StoreFiles.files(at: store, containing: Self.token).isEmpty)
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        #expect(conversation.key == "GET /chat")
        #expect(conversation.subprotocol == "chat.v1")
        #expect(conversation.end == .closed(by: .server, code: 4000, reason: "server says bye"))
        let auth = try #require(conversation.messages.first { $0.direction == .client && $0.kind == .text })
        #expect(String(decoding: auth.payload, as: UTF8.self) == #"{"type": "auth", "token": "REDACTED"}"#)
        let replayed = try await withInProcessReplayer(store: store) { replayer in
            try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat")
        }
        #expect(replayed.contains(#"{"recv": "{\"type\": \"authed\"}"}"#), "\(replayed)")
    }

    @Test func aChangedClientMessageClosesWith1008NamingTheExpectedMessageAndIsAMissForStrict() async throws {
        _ = try await WebSocketPeers.recordChatInProcess(store: store)
        try await withInProcessReplayer(store: store, arguments: ["--strict", "--ws-timing", "fast"]) { replayer in
            let received = try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat", script: "changed")
            let last = try #require(received.last)
            #expect(last.hasPrefix(#"{"closed": 1008, "reason": "expected text message: {\"id\": 7, \"method\": \"add\", \"params\": [1, 2]}"#), "\(received)")
            try await replayer.waitForLogLine(containing: "MISS WebSocket /chat")
            // What --strict counts to exit 1.
            #expect(await replayer.stop().counters.missed == 1)
        }
    }

    /// What the `ids` script receives: the hello, a reply per request id (results 11, 12, 13), the close.
    static func idsReplies(_ ids: [Int]) -> [String] {
        [#"{"recv": "{\"type\": \"hello\"}"}"#] + zip(ids, [11, 12, 13]).map { #"{"recv": "{\"id\": \#($0), \"result\": \#($1)}"}"# }
            + [#"{"closed": 4000, "reason": "server says bye"}"#]
    }

    @Test func repliesCarryTheIdsTheLiveClientChoseAndAChangedParameterIsStillAMiss() async throws {
        let recorded = try await WebSocketPeers.recordChatInProcess(store: store, script: "ids 0")
        #expect(recorded == Self.idsReplies([1, 2, 3]))
        // The upstream is stopped; the client numbers its requests from 101.
        try await withInProcessReplayer(store: store, arguments: ["--strict", "--ws-timing", "fast"]) { replayer in
            let replayed = try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat", script: "ids 100")
            #expect(replayed == Self.idsReplies([101, 102, 103]))
            let changed = try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat", script: "ids 100 changed")
            #expect(Array(changed.prefix(2)) == Array(Self.idsReplies([101]).prefix(2)), "\(changed)")
            let last = try #require(changed.last)
            #expect(
                last.hasPrefix(#"{"closed": 1008, "reason": "expected text message: {\"id\": 2, \"method\": \"add\", \"params\": [2, 10]}"#), "\(changed)")
            try await replayer.waitForLogLine(containing: "MISS WebSocket /chat")
            // What --strict counts to exit 1.
            #expect(await replayer.stop().counters.missed == 1)
        }
    }

    @Test func aMessageOverWsMaxMessageClosesWith1009() async throws {
        _ = try await WebSocketPeers.recordChatInProcess(store: store)
        try await withInProcessReplayer(store: store, arguments: ["--ws-max-message", "1024"]) { replayer in
            let received = try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat", script: "large 3000")
            #expect(received.last?.hasPrefix(#"{"closed": 1009"#) == true, "\(received)")
            // The proxy goes on serving: a new connection replays the whole conversation.
            let again = try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat")
            #expect(again.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(again)")
        }
    }

    @Test func aWsprotoClientSendingInFragmentsIsRecordedWithItsFragmentSizesAndEitherClientReplaysIt() async throws {
        let recorded = try await WebSocketPeers.recordInProcess(store: store) { recorder, _ in
            try await WebSocketPeers.wsprotoClient("ws://127.0.0.1:\(recorder.port)/chat", script: "chat-fragmented")
        }
        #expect(recorded.count == 8, "\(recorded)")
        #expect(recorded.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(recorded)")
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        let echo = try #require(conversation.messages.first { $0.direction == .client && $0.payload == Data("echo me".utf8) })
        #expect(echo.fragments == [5, 2])
        #expect(conversation.requestHeaders[HTTPField.Name("Sec-WebSocket-Protocol")!] == "chat.v1")
        // Offline, both client libraries get what the recording client got: the fragments joined
        // match an unfragmented message.
        try await withInProcessReplayer(store: store) { replayer in
            let wsproto = try await WebSocketPeers.wsprotoClient("ws://127.0.0.1:\(replayer.port)/chat", script: "chat")
            let websockets = try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat")
            #expect(wsproto == recorded)
            #expect(websockets == recorded)
        }
    }

    @Test func exportWritesTheConversationAsAFixtureFileAndAsChromesWebSocketMessagesInHAR() async throws {
        _ = try await WebSocketPeers.recordChatInProcess(store: store)
        let fixtures = try await runCassette(["export", "--fixtures", workspace.path("Fixtures"), "--db", store], cwd: workspace.directory)
        #expect(fixtures.status == 0, "\(fixtures)")
        #expect(fixtures.stdout.hasPrefix("created  websocket/chat.json  (WebSocket GET /chat, "), "\(fixtures)")
        #expect(fixtures.stdout.contains(#"messages, server closed 4000 "server says bye")"#), "\(fixtures)")
        #expect(fixtures.stdout.contains("Exported 1 WebSocket conversation from cassette dev to "), "\(fixtures)")
        let file = try Data(contentsOf: URL(fileURLWithPath: workspace.path("Fixtures/websocket/chat.json")))
        let fixture = try JSONDecoder().decode(ConversationFixture.self, from: file)
        #expect(fixture.subprotocol == "chat.v1")
        #expect(fixture.end == ConversationFixture.End(kind: "closed", by: "server", code: 4000, reason: "server says bye"))
        #expect(fixture.messages.first { $0.direction == "client" }?.text == #"{"type": "auth", "token": "REDACTED"}"#)
        // Running it again changes nothing.
        let again = try await runCassette(["export", "--fixtures", workspace.path("Fixtures"), "--db", store], cwd: workspace.directory)
        #expect(again.stdout.contains("unchanged  websocket/chat.json"), "\(again)")

        let har = try await runCassette(["export", "--har", workspace.path("ws.har"), "--db", store], cwd: workspace.directory)
        #expect(har.status == 0, "\(har)")
        #expect(har.stdout.contains("and 1 WebSocket conversation"), "\(har)")
        let archive = try HARArchive.decode(Data(contentsOf: URL(fileURLWithPath: workspace.path("ws.har"))))
        let entry = try #require(archive.log.entries.first { $0.resourceType == "websocket" })
        #expect(entry.response.status == 101)
        let messages = try #require(entry.webSocketMessages)
        #expect(messages.first == HARWebSocketMessage(type: "receive", time: messages[0].time, opcode: 1, data: #"{"type": "hello"}"#))
        #expect(messages.filter { $0.type == "send" }.map(\.data).contains("echo me"))
        #expect(messages.map(\.time) == messages.map(\.time).sorted())
    }

    @Test func permessageDeflateIsAgreedByTheUpstreamWhenRecordingAndAfreshOnReplayWithPlainPayloadsStored() async throws {
        let recorded = try await WebSocketPeers.recordInProcess(store: store) { recorder, base in
            let direct = try await WebSocketPeers.client("ws://127.0.0.1:\(base.port!)/chat", deflate: true)
            let proxied = try await WebSocketPeers.client("ws://127.0.0.1:\(recorder.port)/chat", deflate: true)
            // Through the proxy, the client gets the upstream's own answer: both talk compressed.
            #expect(proxied.first == direct.first, "\(proxied) against \(direct)")
            return proxied
        }
        #expect(recorded.first?.hasPrefix(#"{"extensions": "permessage-deflate"#) == true, "\(recorded)")
        #expect(recorded.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(recorded)")
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        #expect(conversation.extensions?.hasPrefix("permessage-deflate") == true)
        // The store keeps each message inflated, redacted as an uncompressed one is.
        #expect(conversation.messages.contains { $0.payload == Data(#"{"type": "tick", "n": 3}"#.utf8) })
        #expect(conversation.messages.contains { $0.payload == Data(#"{"type": "auth", "token": "REDACTED"}"#.utf8) })
        #expect(try StoreFiles.files(at: store, containing: Self.token).isEmpty)
        let replayed = try await withInProcessReplayer(store: store) { replayer in
            try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat", deflate: true)
        }
        // Agreed afresh: the websockets client offers `client_max_window_bits`, which the proxy need not limit.
        #expect(replayed.first == #"{"extensions": "permessage-deflate"}"#, "\(replayed)")
        #expect(Array(replayed.dropFirst()) == Array(recorded.dropFirst()))
        // A client that does not offer it is answered uncompressed from the same recording.
        let plain = try await withInProcessReplayer(store: store) { replayer in
            try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat")
        }
        #expect(plain == Array(recorded.dropFirst()))
    }

    @Test func aDeflatingWsprotoClientIsAnsweredWithEveryMessageCompressedAnewUnderTheWindowItAskedFor() async throws {
        let recorded = try await WebSocketPeers.recordInProcess(store: store) { recorder, _ in
            try await WebSocketPeers.wsprotoClient("ws://127.0.0.1:\(recorder.port)/chat", deflate: true)
        }
        #expect(recorded.contains(#"{"closed": 4000, "reason": "server says bye"}"#), "\(recorded)")
        // The client's messages came compressed too, and were stored inflated.
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        #expect(conversation.messages.contains { $0.direction == .client && $0.payload == Data("echo me".utf8) })
        #expect(conversation.messages.contains { $0.payload == Data(#"{"type": "auth", "token": "REDACTED"}"#.utf8) })
        let replayed = try await withInProcessReplayer(store: store, arguments: ["--ws-timing", "fast"]) { replayer in
            try await WebSocketPeers.wsprotoClient("ws://127.0.0.1:\(replayer.port)/chat", deflate: true)
        }
        // wsproto offered server_no_context_takeover and a 1 KiB window, and holds the proxy to them.
        #expect(
            replayed.first == #"{"extensions": ["<CountingDeflate client_max_window_bits=15; server_max_window_bits=10; server_no_context_takeover>"]}"#,
            "\(replayed)")
        let messages = replayed.filter { $0.hasPrefix(#"{"recv""#) }
        #expect(messages == recorded.filter { $0.hasPrefix(#"{"recv""#) })
        #expect(replayed.last == #"{"compressed": \#(messages.count), "messages": \#(messages.count)}"#, "\(replayed)")
    }

    @Test func aServerMessageSentInFragmentsIsRecordedWithItsSizesAndReplayedInTheSameFragments() async throws {
        let recorded = try await WebSocketPeers.recordInProcess(store: store) { recorder, _ in
            try await WebSocketPeers.client("ws://127.0.0.1:\(recorder.port)/chat", script: "fragments")
        }
        // The websockets client reads the message frame by frame (`recv_streaming`); the server,
        // sending an iterable, ends the message with an empty final frame.
        let fragments = #"{"fragments": ["frag", "mented ", "reply", ""]}"#
        #expect(recorded.contains(fragments), "\(recorded)")
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        let message = try #require(conversation.messages.first { $0.payload == Data("fragmented reply".utf8) })
        #expect(message.fragments == [4, 7, 5, 0])
        let replayed = try await withInProcessReplayer(store: store, arguments: ["--ws-timing", "fast"]) { replayer in
            try await WebSocketPeers.client("ws://127.0.0.1:\(replayer.port)/chat", script: "fragments")
        }
        #expect(replayed == recorded)
    }

    @Test func listAndShowPrintTheConversationWithItsMessages() async throws {
        _ = try await WebSocketPeers.recordChatInProcess(store: store)
        let list = try await runCassette(["list", "--db", store], cwd: workspace.directory)
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.contains("GET /chat"), "\(list)")
        #expect(list.stdout.contains("server closed 4000"), "\(list)")
        let show = try await runCassette(["show", "GET /chat", "--db", store], cwd: workspace.directory)
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.contains(#"-> text   {"type": "auth", "token": "REDACTED"}"#), "\(show)")
        #expect(show.stdout.contains(#"<- text   {"type": "tick", "n": 3}"#), "\(show)")
        #expect(show.stdout.contains("ended: server closed 4000 \"server says bye\""), "\(show)")
    }
}
