import Foundation
import TestSupport
import Testing

/// A file name that is not UTF-8 (latin-1 `caf\xE9.db`) never names another file: the tool
/// refuses it before opening anything, shows it escaped, and creates nothing.
@Suite("Arguments that are not UTF-8")
final class NonUTF8ArgumentTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Runs `cassette ARGUMENTS` through sh, whose `printf` turns `\351` into the byte 0xE9: the
    /// test's own strings cannot hold such bytes. Waited for off the cooperative pool, as every
    /// other child process of the tests (a `waitUntilExit` there spins a run loop on a pool thread
    /// while other tests start processes).
    func runThroughShell(_ arguments: String) async throws -> CommandResult {
        try await ExternalTool.run(["sh", "-c", "exec \"$0\" \(arguments)", try cassetteExecutable().path], cwd: workspace.directory)
    }

    func entries() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path).count
    }

    static let message =
        "error: argument 3 ('caf\\xE9.db') is not UTF-8; cassette takes file names and arguments in UTF-8 only, "
        + "so it opens nothing rather than the wrong file: rename the file (mv) and run the command again\n"

    @Test(arguments: ["list --db", "import --db", "delete --all --cassette dev --db"])
    func aNameThatIsNotUTF8IsRefusedEscapedAndNothingIsCreated(_ command: String) async throws {
        let result = try await runThroughShell("\(command) \"$(printf 'caf\\351.db')\"")
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasSuffix(Self.message.drop { $0 != "(" }), "\(result.stderr)")
        #expect(try entries() == 0)
    }

    @Test func anExistingFileWithSuchANameIsNotMistakenForAnother() async throws {
        // The name Swift would decode it to, U+FFFD in place of the byte, must not be used either.
        try workspace.write("not a store", to: "caf\u{FFFD}.db")
        let result = try await runThroughShell("list --db \"$(printf 'caf\\351.db')\"")
        #expect(result.stderr == Self.message, "\(result.stderr)")
        #expect(try String(contentsOfFile: workspace.path("caf\u{FFFD}.db"), encoding: .utf8) == "not a store")
        #expect(try entries() == 1)
    }
}
