import Foundation
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
