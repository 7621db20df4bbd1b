import Foundation
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteUI

struct HTMLReportTests {
    @Test func aBodyThatClosesTheScriptTagCannotEndTheDataBlock() throws {
        let page = HTMLReport.page(dataJSON: JSONValue.object(["text": "</script><script>alert(1)</script>"]).compactJSON)
        let block = try #require(page.range(of: #"<script type="application/json" id="cassette-data">"#))
        let end = try #require(page.range(of: "</script>", range: block.upperBound..<page.endIndex))
        let data = String(page[block.upperBound..<end.lowerBound])
        #expect(!data.contains("<"))
        let decoded = try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: String]
        #expect(decoded?["text"] == "</script><script>alert(1)</script>")
    }

    @Test func theReportsPolicyAllowsItsOneScriptByHashAndNothingInline() throws {
        let page = HTMLReport.page(dataJSON: "{}")
        let script = "\n" + UIAssets.script + "\n"
        #expect(page.contains("<script>\(script)</script>"))
        #expect(page.contains("script-src \(UIAssets.hashSource(of: script))"))
        #expect(!page.contains("unsafe-inline"))
        #expect(page.contains("default-src 'none'"))
    }

    /// The served list gives the recordings by id (the order they were stored); the report gave
    /// them in the store's key order, `items/1`, `items/10`, `items/11`, `items/2`.
    @Test func theReportListsTheRecordingsInTheOrderOfTheServedList() async throws {
        let workspace = try CLIWorkspace()
        try await workspace.record(
            [1, 2, 10, 11, 3].map { number in
                Interaction(
                    cassette: "dev", method: .get, url: "http://api.example.test/items/\(number)", key: "GET /items/\(number)", statusCode: 200,
                    responseBody: Data("{}".utf8))
            })
        let store = try await CassetteStore.open(path: workspace.storePath, access: .readOnly)
        let catalog = UICatalog(store: store)
        let page = try await HTMLReport(catalog: catalog).html()
        let served = try await catalog.interactions(InteractionBrowseQuery())
        try await store.close()

        let block = try #require(page.range(of: #"<script type="application/json" id="cassette-data">"#))
        let end = try #require(page.range(of: "</script>", range: block.upperBound..<page.endIndex))
        let data = try #require(try JSONValue(parsing: Data(page[block.upperBound..<end.lowerBound].utf8)).objectValue)
        let tables = try #require(data["interactions"]?.objectValue)
        let urlColumn = try #require(tables["columns"]?.arrayValue?.firstIndex(of: "url"))
        let reported = try #require(tables["rows"]?.arrayValue).map { $0.arrayValue?[urlColumn].stringValue ?? "" }
        let listed = try #require(served.objectValue?["rows"]?.arrayValue).map { $0.objectValue?["url"]?.stringValue ?? "" }
        #expect(reported == [1, 2, 10, 11, 3].map { "http://api.example.test/items/\($0)" })
        #expect(reported == listed)
    }

    @Test func theHashSourceIsTheBase64SHA256OfTheText() {
        // printf 'abc' | openssl dgst -sha256 -binary | base64
        #expect(UIAssets.hashSource(of: "abc") == "'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='")
    }

    @Test func theScriptNeverParsesRecordedTextAsHTML() {
        for forbidden in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
            #expect(!UIAssets.script.contains(forbidden), "app.js uses \(forbidden)")
        }
    }
}
