import Foundation
import TestSupport
import Testing

/// The DocC articles' Swift code is code the suite compiles: every ```swift block of an article
/// must stand, line for line (indentation aside), in one of the test files that compile it.
@Suite("DocC articles")
struct DocCArticleTests {
    static let articles: [(article: String, compiledIn: [String])] = [
        ("Sources/WellPlateNetworking/WellPlateNetworking.docc/GettingStarted.md", ["Tests/EndToEndTests/DocCArticleExamples.swift"]),
        ("Sources/WellPlateNetworking/WellPlateNetworking.docc/ExpiredCredentials.md", ["Tests/EndToEndTests/ExpiredCredentialsArticle.swift"]),
        ("Sources/CassetteTesting/CassetteTesting.docc/TestingWithCassettes.md", ["Tests/EndToEndTests/CassetteReadmeExampleTests.swift"]),
    ]

    static func swiftBlocks(_ markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil {
                current!.append(String(line))
            }
        }
        return blocks
    }

    static func significantLines(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    @Test(arguments: articles.map(\.article))
    func everySwiftBlockIsCompiledByTheSuite(article: String) throws {
        let root = ExternalTool.packageRoot
        let entry = try #require(Self.articles.first { $0.article == article })
        let markdown = try String(contentsOf: root.appendingPathComponent(article), encoding: .utf8)
        let blocks = Self.swiftBlocks(markdown)
        #expect(!blocks.isEmpty, "\(article) has no Swift code to check")
        let compiled = try entry.compiledIn.map { file in
            Self.significantLines(try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n"))
        }
        for block in blocks {
            let lines = Self.significantLines(block)
            #expect(compiled.contains { Self.contains($0, lines) }, "\(article): this block is not in \(entry.compiledIn):\n\(block.joined(separator: "\n"))")
        }
    }

    @Test func aBlockThatDriftedIsFound() {
        let compiled = Self.significantLines(["func a() {", "    b()", "}"])
        #expect(Self.contains(compiled, Self.significantLines(["func a() {", "b()", "}"])))
        #expect(!Self.contains(compiled, Self.significantLines(["func a() {", "c()", "}"])))
    }
}
