import CassetteUI
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore

struct UICatalogTests {
    static func recordings() -> [Interaction] {
        (0..<30).map { number in
            Interaction(
                cassette: number < 20 ? "dev" : "staging", method: number % 3 == 0 ? .post : .get,
                url: number % 2 == 0 ? "https://api.example.com/items/\(number)" : "https://auth.example.com/token/\(number)",
                key: "K\(number)", statusCode: number % 5 == 0 ? 500 : 200, responseBody: Data("body \(number) \(number == 7 ? "needle" : "")".utf8))
        }
    }

    @Test func theListIsFilteredByMethodStatusHostPathAndBodyTextAndPaged() async throws {
        let workspace = try CLIWorkspace()
        try await workspace.record(Self.recordings())
        let store = try await CassetteStore.open(path: workspace.storePath)
        let catalog = UICatalog(store: store)
        func total(_ configure: (inout InteractionBrowseQuery) -> Void) async throws -> Int {
            var query = InteractionBrowseQuery()
            configure(&query)
            return Int(try await catalog.interactions(query).objectValue?["total"]?.doubleValue ?? -1)
        }
        #expect(try await total { _ in } == 30)
        #expect(try await total { $0.cassette = "staging" } == 10)
        #expect(try await total { $0.method = "post" } == 10)
        #expect(try await total { $0.status = 500 } == 6)
        #expect(try await total { $0.host = "AUTH.example" } == 15)
        #expect(try await total { $0.path = "/items/2" } == 6)
        #expect(try await total { $0.text = "needle" } == 1)
        var page = InteractionBrowseQuery()
        page.offset = 25
        page.limit = 10
        let rows = try await catalog.interactions(page).objectValue?["rows"]?.arrayValue
        #expect(rows?.count == 5)
        try await store.close()
    }

    /// Three GraphQL operations keyed as the proxy keys them (`POST /graphql gql:query:GetUser body:…`).
    static func graphQLRecordings() -> [Interaction] {
        [("query", "GetUser"), ("query", "GetUserPosts"), ("mutation", "RenameUser")].map { type, name in
            let body = Data(#"{"query":"\#(type) \#(name) { user { id } }","operationName":"\#(name)"}"#.utf8)
            let headers: HTTPFields = [.contentType: "application/json"]
            let key = RequestKey(method: .post, target: "/graphql", headerFields: headers, body: body)
            return Interaction(
                cassette: "dev", method: .post, url: "https://api.example.com/graphql", key: key.rawValue, requestHeaders: headers, requestBody: body,
                statusCode: 200, responseHeaders: [.contentType: "application/json"], responseBody: Data(#"{"data":{"user":{"id":1}}}"#.utf8))
        }
    }

    @Test func theOperationFilterFindsGraphQLRequestsByTheirOperationsLabelAndRowsNameIt() async throws {
        let workspace = try CLIWorkspace()
        let graphQL = Self.graphQLRecordings()
        #expect(graphQL[0].key.contains(" gql:query:GetUser "), "\(graphQL[0].key)")
        let stored = try await workspace.record(Self.recordings() + graphQL)
        let store = try await CassetteStore.open(path: workspace.storePath)
        let catalog = UICatalog(store: store)
        func rows(operation: String) async throws -> [JSONObject] {
            var query = InteractionBrowseQuery()
            query.operation = operation
            let page = try await catalog.interactions(query).objectValue
            let rows = page?["rows"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(page?["total"]?.doubleValue == Double(rows.count))
            return rows
        }
        #expect(try await rows(operation: "getuser").map { $0["operation"]?.stringValue } == ["query GetUser", "query GetUserPosts"])
        #expect(try await rows(operation: "query GetUser").count == 2)
        #expect(try await rows(operation: "mutation").map { $0["operation"]?.stringValue } == ["mutation RenameUser"])
        // The label only: not the rest of the key (its body hash), not a REST row's URL.
        #expect(try await rows(operation: "sha256").isEmpty)
        #expect(try await rows(operation: "items").isEmpty)
        var all = InteractionBrowseQuery()
        all.limit = 1
        #expect(try await catalog.interactions(all).objectValue?["rows"]?.arrayValue?.first?.objectValue?["operation"] == .null)
        let detail = try #require(try await catalog.interaction(id: stored.last!.id!)?.objectValue)
        #expect(detail["operation"]?.stringValue == "mutation RenameUser")
        try await store.close()
    }

    @Test func aConversationIsListedWithItsMessageCountAndDetailedAsATimeline() async throws {
        let workspace = try CLIWorkspace()
        let store = try await CassetteStore.open(path: workspace.storePath, access: .readWrite)
        let conversation = Conversation(
            cassette: "dev", url: "http://api.example.test/chat", key: "GET /chat", requestHeaders: [:], subprotocol: "chat.v1", extensions: nil,
            messages: [
                ConversationMessage(direction: .server, kind: .text, payload: Data(#"{"type":"hello"}"#.utf8), offsetMilliseconds: 1.5),
                ConversationMessage(direction: .client, kind: .binary, payload: Data([0, 255]), fragments: [1, 1], offsetMilliseconds: 2),
                ConversationMessage(direction: .server, kind: .close, payload: Data([0x0F, 0xA0]) + Data("bye".utf8), offsetMilliseconds: 3),
            ], end: .closed(by: .server, code: 4000, reason: "bye"))
        #expect(try await store.importConversations([conversation], replacing: false) == 1)
        let catalog = UICatalog(store: store)
        let listed = try #require(try await catalog.conversations(cassette: nil).objectValue?["conversations"]?.arrayValue?.first?.objectValue)
        #expect(listed["messages"]?.doubleValue == 3)
        #expect(listed["end"]?.objectValue?["summary"]?.stringValue == #"server closed 4000 "bye""#)
        #expect(try await catalog.conversations(cassette: "staging").objectValue?["conversations"]?.arrayValue?.isEmpty == true)
        let id = try #require(listed["id"]?.doubleValue.map { Int64($0) })
        let detail = try #require(try await catalog.conversation(id: id)?.objectValue)
        let timeline = (detail["timeline"]?.arrayValue ?? []).compactMap { $0.objectValue }
        #expect(timeline.map { $0["direction"]?.stringValue } == ["server", "client", "server"])
        #expect(timeline[0]["payload"]?.objectValue?["text"]?.stringValue == #"{"type":"hello"}"#)
        #expect(timeline[1]["payload"]?.objectValue?["encoding"]?.stringValue == "base64")
        #expect(timeline[1]["frames"]?.doubleValue == 2)
        #expect(timeline[2]["close"]?.stringValue == "4000 bye")
        #expect(detail["end"]?.objectValue?["kind"]?.stringValue == "closed")
        #expect(try await catalog.conversation(id: 999_999) == nil)
        try await store.close()
    }

    @Test func aConversationsTimelineNamesTheOperationOfEachMessage() async throws {
        let workspace = try CLIWorkspace()
        let store = try await CassetteStore.open(path: workspace.storePath, access: .readWrite)
        let texts: [(ConversationSide, String)] = [
            (.client, #"{"type":"connection_init"}"#),
            (.client, #"{"id":"1","type":"subscribe","payload":{"query":"subscription Countdown { countdown(from: 2) }"}}"#),
            (.server, #"{"id":"1","type":"next","payload":{"data":{"countdown":2}}}"#),
        ]
        let conversation = Conversation(
            cassette: "dev", url: "http://api.example.test/graphql", key: "GET /graphql", requestHeaders: [:], subprotocol: "graphql-transport-ws",
            extensions: nil,
            messages: texts.enumerated().map { index, message in
                ConversationMessage(direction: message.0, kind: .text, payload: Data(message.1.utf8), offsetMilliseconds: Double(index))
            })
        #expect(try await store.importConversations([conversation], replacing: false) == 1)
        let catalog = UICatalog(store: store)
        let id = try #require(try await store.conversations(cassette: nil).first?.id)
        let detail = try #require(try await catalog.conversation(id: id)?.objectValue)
        let operations = (detail["operations"]?.arrayValue ?? []).compactMap { $0.objectValue }
        #expect(operations.map { $0["operation"]?.stringValue } == ["subscription Countdown"])
        #expect(operations.first?["number"]?.doubleValue == 1)
        let timeline = (detail["timeline"]?.arrayValue ?? []).compactMap { $0.objectValue }
        #expect(timeline.map { $0["operation"]?.doubleValue } == [nil, 1, 1])
        try await store.close()
    }

    @Test func aBinaryBodyIsBase64AndATextBodyIsText() async throws {
        let workspace = try CLIWorkspace()
        let stored = try await workspace.record([
            Interaction(cassette: "dev", method: .get, url: "http://x.test/bin", key: "GET /bin", statusCode: 200, responseBody: Data([0, 1, 2, 255])),
            Interaction(cassette: "dev", method: .get, url: "http://x.test/text", key: "GET /text", statusCode: 200, responseBody: Data("héllo".utf8)),
        ])
        let store = try await CassetteStore.open(path: workspace.storePath)
        let catalog = UICatalog(store: store)
        let binary = try #require(try await catalog.interaction(id: stored[0].id!)?.objectValue?["responseBody"]?.objectValue)
        #expect(binary["encoding"]?.stringValue == "base64")
        #expect(binary["text"]?.stringValue == Data([0, 1, 2, 255]).base64EncodedString())
        let text = try #require(try await catalog.interaction(id: stored[1].id!)?.objectValue?["responseBody"]?.objectValue)
        #expect(text["encoding"]?.stringValue == "utf8")
        #expect(text["text"]?.stringValue == "héllo")
        #expect(try await catalog.interaction(id: 999_999) == nil)
        try await store.close()
    }
}
