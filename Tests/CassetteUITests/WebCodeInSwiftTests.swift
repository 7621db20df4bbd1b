import Foundation
import Testing

/// JavaScript, CSS and HTML belong in files that editors, linters and reviewers see as such
/// (`Sources/CassetteUI/Assets/`): this fails when a multi-line Swift string over 2 KB of them
/// appears anywhere under `Sources/`. Long literals of other kinds (a command's help, a codegen
/// template) are not web code and are left to their targets.
struct WebCodeInSwiftTests {
    static let limit = 2048

    /// The package's `Sources/`, found from this file so the test runs from any directory.
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    @Test func noSwiftSourceHoldsMoreThan2KBOfWebCodeInOneString() throws {
        let files = try Self.swiftFiles(under: Self.sources)
        #expect(files.count > 100, "found only \(files.count) Swift files under \(Self.sources.path)")
        var offenders: [String] = []
        for file in files {
            let source = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            for literal in MultiLineLiteral.all(in: source)
            where literal.text.utf8.count > Self.limit && WebCode.recognizes(literal.text) {
                offenders.append("\(file.path):\(literal.line) (\(literal.text.utf8.count) bytes)")
            }
        }
        #expect(offenders == [], "web code in Swift strings; make each a file in Sources/CassetteUI/Assets/")
    }

    /// Were the assets put back into Swift strings, the scan would know them for web code.
    @Test(arguments: ["app.js", "app.css", "index.html"])
    func theScanRecognizesEachAsset(name: String) throws {
        let file = Self.sources.appendingPathComponent("CassetteUI/Assets/\(name)")
        #expect(WebCode.recognizes(String(decoding: try Data(contentsOf: file), as: UTF8.self)))
    }

    @Test func theScanFindsRawAndPlainLiteralsWithTheirLines() {
        let source = ###"""
            let a = 1
            let plain = """
                one \""" two
                """
            let raw = ##"""
                """
                three
                """##
            """###
        let found = MultiLineLiteral.all(in: source)
        #expect(found.map(\.line) == [2, 5])
        #expect(found.map(\.text) == [#"    one \""" two"#, "    \"\"\"\n    three"])
    }

    @Test func proseAndSwiftAreNotWebCode() {
        #expect(!WebCode.recognizes("Configuration file: cassette.json {\"database\": \"cassettes.db\"} <name>"))
        #expect(!WebCode.recognizes("public struct User: Codable {\n    let id: Int\n}"))
        #expect(WebCode.recognizes("main { padding: 16px; }"))
        #expect(WebCode.recognizes("rows.forEach((row) => draw(row));"))
        #expect(WebCode.recognizes("<p>text</p>"))
    }

    static func swiftFiles(under folder: URL) throws -> [URL] {
        let walker = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }
}

/// A `"""` string of a Swift source, raw (`#"""`) or not: the line it opens on and its text.
struct MultiLineLiteral: Equatable {
    let line: Int
    let text: String

    static let quotes = "\"\"\""

    /// Line by line: a literal opens where a line ends in `"""` after any `#`s, and closes on the
    /// first later line that starts with `"""` and as many `#`s, which is what the compiler requires.
    static func all(in source: String) -> [MultiLineLiteral] {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        var found: [MultiLineLiteral] = []
        var index = 0
        while index < lines.count {
            let opening = lines[index].reversed().drop { $0 == " " || $0 == "\t" }
            guard opening.starts(with: quotes) else {
                index += 1
                continue
            }
            let hashes = opening.dropFirst(3).prefix { $0 == "#" }.count
            let closing = quotes + String(repeating: "#", count: hashes)
            var end = index + 1
            while end < lines.count {
                let trimmed = lines[end].drop { $0 == " " || $0 == "\t" }
                if trimmed.hasPrefix(closing), !trimmed.dropFirst(closing.count).hasPrefix("#") { break }
                end += 1
            }
            let text = lines[min(index + 1, end)..<end].joined(separator: "\n")
            found.append(MultiLineLiteral(line: index + 1, text: text))
            index = end + 1
        }
        return found
    }
}

/// Whether a text reads as JavaScript, CSS or HTML: markers that a command's help, Swift code or
/// JSON do not use.
enum WebCode {
    static let javaScript = ["=>", "document.", "window.", "function (", "function(", "\"use strict\"", "addEventListener"]

    static func recognizes(_ text: String) -> Bool {
        // A CSS rule is a block holding a `property: value;` declaration; HTML is a closing tag or
        // a doctype, since help texts write a placeholder as `<name>`.
        javaScript.contains { text.contains($0) }
            || text.contains(/\{[^{}]*?[a-z-]+\s*:\s*[^;{}]+;[^{}]*\}/)
            || text.contains(/<\/[a-zA-Z][a-zA-Z0-9]*>|<!doctype/.ignoresCase())
    }
}
