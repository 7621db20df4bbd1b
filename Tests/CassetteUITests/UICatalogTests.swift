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
