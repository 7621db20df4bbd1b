import Foundation
import Testing

@testable import CassetteUI

/// The UI's files as the binary carries them, against the files in `Sources/CassetteUI/Assets/`:
/// a file left out of Package.swift's resources, or a build that embedded another copy, fails
/// here rather than in a browser.
struct UIAssetsTests {
    /// `Sources/CassetteUI/Assets/`, found from this file so the test runs from any directory.
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/CassetteUI/Assets")

    static func onDisk(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(name))
    }

    static func textOnDisk(_ name: String) throws -> String {
        String(decoding: try onDisk(name), as: UTF8.self)
    }

    @Test func everyFileOfTheAssetsFolderIsServedWithItsBytesOnDisk() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".swift") }.sorted()
        #expect(names == ["app.css", "app.js", "index.html"])
        for name in names {
            let asset = try #require(UIAssets.asset(named: name), "\(name) is not in the binary")
            #expect(asset.bytes == (try Self.onDisk(name)), "the binary's \(name) differs from the file")
        }
    }

    @Test(arguments: [
        ("", "text/html; charset=utf-8"), ("index.html", "text/html; charset=utf-8"),
        ("app.css", "text/css; charset=utf-8"), ("app.js", "text/javascript; charset=utf-8"),
    ])
    func eachAssetHasItsContentType(name: String, contentType: String) throws {
        #expect(try #require(UIAssets.asset(named: name)).contentType == contentType)
    }

    @Test func theRootIsTheIndexPageAndNothingElseIsServed() throws {
        #expect(try #require(UIAssets.asset(named: "")).bytes == (try Self.onDisk("index.html")))
        #expect(UIAssets.asset(named: "UIAssets.swift") == nil)
        #expect(UIAssets.asset(named: "missing.js") == nil)
    }

    /// The report's policy allows its inline script and stylesheet by hash, so the hashes must be
    /// those of the files as shipped.
    @Test func theReportInlinesTheFilesAndAllowsThemByTheirHashes() throws {
        let page = HTMLReport.page(dataJSON: "{}")
        let script = "\n" + (try Self.textOnDisk("app.js")) + "\n"
        let style = "\n" + (try Self.textOnDisk("app.css")) + "\n"
        #expect(page.contains("<script>\(script)</script>"))
        #expect(page.contains("<style>\(style)</style>"))
        #expect(page.contains("script-src \(UIAssets.hashSource(of: script))"))
        #expect(page.contains("style-src \(UIAssets.hashSource(of: style))"))
    }

    @Test func theReportHasTheServedPagesBody() throws {
        let index = try Self.textOnDisk("index.html")
        #expect(UIAssets.body.contains(#"<main id="main">"#))
        #expect(index.contains("<body>\n\(UIAssets.body)\n</body>"))
        #expect(HTMLReport.page(dataJSON: "{}").contains("<body>\n\(UIAssets.body)\n"))
    }
}
