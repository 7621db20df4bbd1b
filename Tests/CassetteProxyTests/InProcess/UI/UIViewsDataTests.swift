import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore

/// The data of the Drift, Sessions and Conversations views, as `cassette replay` (in this process)
/// gives it to the page (the browser test checks what the page draws from it; `cassette ui` and
/// `cassette report`: `UIReportDataTests`).
struct UIViewsDataTests {
    static func json(_ response: TransportResponse) throws -> JSONObject {
        try #require(try JSONValue(parsing: response.body).objectValue)
    }

    @Test func theDriftViewsAuditMasksTheSecretAndSaysNoFixturesWereGiven() async throws {
        let workspace = try CLIWorkspace()
        try await workspace.record(UIRecordings.interactions())
        try await withInProcessReplayer(store: workspace.storePath) { proxy in
            let response = try await proxy.get("/__cassette/ui/api/findings")
            #expect(response.statusCode == 200)
            #expect(response.headerFields[.contentSecurityPolicy] != nil)
            let text = String(decoding: response.body, as: UTF8.self)
            #expect(!text.contains(UIRecordings.secret), "the value is masked: \(text)")
            let answer = try Self.json(response)
            #expect(answer["drift"] == .null)
            let audit = try #require(answer["audit"]?.objectValue)
            let findings = audit["findings"]?.arrayValue?.compactMap(\.objectValue) ?? []
            let found = try #require(findings.first { $0["rule"]?.stringValue == "github-token" }, "\(findings)")
            #expect(found["key"]?.stringValue == "GET /users/me")
            #expect(found["maskedValue"]?.stringValue?.hasPrefix("ghp_") == true)
        }
    }

    @Test func theSessionsViewListsASessionWithItsMissAndKeepsItOnceEnded() async throws {
        let workspace = try CLIWorkspace()
        try await workspace.record(UIRecordings.interactions())
        try await withInProcessReplayer(store: workspace.storePath) { proxy in
            let opened = try await proxy.send(.post, "/__cassette/sessions", json: #"{"cassette": "dev"}"#)
            let id = try #require(try Self.json(opened)["id"]?.stringValue)
            let header: HTTPFields = [HTTPField.Name("X-Cassette-Session")!: id]
            #expect(try await proxy.get("/items/3", headers: header).statusCode == 200)
            #expect(try await proxy.get("/items/3?size=9", headers: header).statusCode == 404)

            func sessions() async throws -> [JSONObject] {
                let listed = try Self.json(try await proxy.get("/__cassette/ui/api/sessions"))
                #expect(listed["live"] == true)
                return try #require(listed["sessions"]?.arrayValue).compactMap(\.objectValue)
            }
            let live = try #require(try await sessions().first)
            #expect(live["id"]?.stringValue == id)
            #expect(live["state"]?.stringValue == "live")
            let summary = try #require(live["summary"]?.objectValue)
            let missed = try #require(summary["missed"]?.arrayValue?.first?.objectValue)
            let differences = missed["nearest"]?.arrayValue?.first?.objectValue?["differences"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(differences.contains { $0.contains("size") }, "\(differences)")
            #expect(summary["unused"]?.arrayValue?.count == UIRecordings.interactions().count - 1)
            #expect(live["journal"]?.objectValue?["count"]?.doubleValue == 2)

            #expect(try await proxy.send(.delete, "/__cassette/sessions/\(id)").statusCode == 200)
            let ended = try #require(try await sessions().first)
            #expect(ended["id"]?.stringValue == id)
            #expect(ended["state"]?.stringValue == "ended")
            #expect(ended["journal"]?.objectValue?["count"]?.doubleValue == 2)
        }
    }

    @Test func aStoreWithoutConversationsListsNoneAndAnUnknownOneIsA404ThatSaysSo() async throws {
        let workspace = try CLIWorkspace()
        try await workspace.record(Array(UIRecordings.interactions().prefix(3)))
        try await withInProcessReplayer(store: workspace.storePath) { proxy in
            let listed = try await proxy.get("/__cassette/ui/api/conversations")
            #expect(listed.statusCode == 200)
            #expect(try Self.json(listed)["conversations"]?.arrayValue?.isEmpty == true)
            let missing = try await proxy.get("/__cassette/ui/api/conversation?id=999")
            #expect(missing.statusCode == 404)
            #expect(try Self.json(missing)["message"]?.stringValue == "the store has no WebSocket conversation or gRPC call 999; it may have been deleted")
            let unnamed = try await proxy.get("/__cassette/ui/api/conversation")
            #expect(unnamed.statusCode == 400)
            #expect(try Self.json(unnamed)["message"]?.stringValue == "give the conversation's id: api/conversation?id=N")
        }
    }

}
