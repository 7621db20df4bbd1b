import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `--help` of every command: defaults read as a user would type them, and prose is left for
/// ArgumentParser to wrap to the terminal (a hand-made line break shows as a ragged edge).
@Suite("cassette --help")
final class HelpTextTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let commands: [[String]] = [
        [], ["record"], ["replay"], ["run"], ["list"], ["show"], ["delete"], ["prune"], ["export"],
        ["diff"], ["schema"], ["codegen", "swift"], ["openapi"], ["verify"], ["request"], ["config"], ["audit"], ["redact"], ["import"], ["dump"], ["merge"],
    ]

    /// The help of `command` on a terminal `columns` wide.
    private func help(_ command: [String], columns: Int) async throws -> String {
        let result = try await workspace.run(arguments: command + ["--help"], environment: ["COLUMNS": String(columns)])
        #expect(result.status == 0, "\(result)")
        return result.stdout
    }

    @Test func replayPrintsItsLatencyDefaultAsTyped() async throws {
        let text = try await help(["replay"], columns: 1000)
        let latency = try #require(text.split(separator: "\n").first { $0.contains("--latency <latency>") })
        #expect(latency.hasSuffix("(default: none)"), "\(latency)")
    }

    @Test("defaults are values, never Swift type dumps", arguments: commands)
    func defaultsAreValues(_ command: [String]) async throws {
        let text = try await help(command, columns: 1000)
        // `Type.Member` or `Type(label:`: what String(describing:) makes of a Swift value.
        let typeDump = /[A-Z]\w*\.[A-Z]\w*|\w\(\w+:/
        for line in text.split(separator: "\n") where line.contains("default:") {
            #expect(line.firstMatch(of: typeDump) == nil, "\(line)")
        }
    }

    /// On a very wide terminal each paragraph of the discussion is one line: a line of prose
    /// followed directly by more prose at the same indentation was broken by hand.
    @Test("discussions have no hand-made line breaks", arguments: commands)
    func discussionsAreNotHandWrapped(_ command: [String]) async throws {
        let text = try await help(command, columns: 1000)
        let discussion = text.components(separatedBy: "\nUSAGE:").first ?? ""
        let lines = discussion.components(separatedBy: "\n")
        for (line, next) in zip(lines, lines.dropFirst()) {
            let isProse = !line.isEmpty && !line.hasPrefix(" ") && !line.hasSuffix(":")
            let continues = !next.isEmpty && !next.hasPrefix(" ")
            #expect(!(isProse && continues), "hand-wrapped after: \(line)")
        }
    }
}
