import Foundation
import TestSupport
import Testing

/// `cassette --help` and every subcommand's help in an 80-column terminal: example lines (the
/// indented, preformatted ones) fit, so none is wrapped mid-command or mid-comment. A wrapped
/// example shows as an indented line followed, without a blank line, by one that starts at the
/// margin (ArgumentParser continues wrapped discussion lines there).
@Suite("Help in 80 columns")
final class HelpWidthTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let subcommands = [
        "", "record", "replay", "run", "list", "show", "delete", "prune", "export", "import", "dump", "merge", "diff", "schema", "codegen",
        "openapi", "verify", "request", "config", "audit", "redact",
    ]

    /// Lines that continue a wrapped example.
    static func wrappedExampleLines(_ help: String) -> [String] {
        let lines = help.components(separatedBy: "\n")
        let sections = ["USAGE:", "OPTIONS:", "ARGUMENTS:", "SUBCOMMANDS:", "See"]
        return zip(lines, lines.dropFirst()).compactMap { line, next in
            guard line.hasPrefix("  "), !next.isEmpty, !next.hasPrefix(" "), !next.hasSuffix(":"),
                !sections.contains(where: next.hasPrefix)
            else { return nil }
            return next
        }
    }

    @Test(arguments: subcommands)
    func examplesFitAnEightyColumnTerminal(_ subcommand: String) async throws {
        let result = try await workspace.run(arguments: ["help"] + (subcommand.isEmpty ? [] : [subcommand]), environment: ["COLUMNS": "80"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.wrappedExampleLines(result.stdout) == [], "cassette help \(subcommand)")
        // Everything but ArgumentParser's one-line USAGE fits.
        let long = result.stdout.components(separatedBy: "\n").filter { $0.count > 80 && !$0.hasPrefix("USAGE:") }
        #expect(long == [], "cassette help \(subcommand)")
    }

    @Test func theHeuristicSeesAWrappedExample() {
        #expect(Self.wrappedExampleLines("Examples:\n  cassette record --upstream URL  # point the app at the\nproxy\n") == ["proxy"])
        #expect(Self.wrappedExampleLines("Examples:\n  cassette replay\n\nProse starts here.\n") == [])
    }
}
