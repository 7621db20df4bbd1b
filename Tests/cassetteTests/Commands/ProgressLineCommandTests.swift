import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The progress line of the long commands, run as the real binary with standard error on a
/// pseudo-terminal: drawn there and cleared before the result, never on a pipe, under `--quiet`
/// or with `TERM=dumb`. Every drawing is checked for its shape, never for its timing.
@Suite("progress line of the long commands")
final class ProgressLineCommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let count = 2000
    static let terminal = ["TERM": "xterm-256color"]

    /// `count` recordings of `/api/items/{id}` in one transaction; with `secrets`, every tenth
    /// carries an Authorization header that redaction would have removed.
    private func makeStore(_ name: String = "cassettes.db", secrets: Bool = false) async throws {
        let interactions = (0..<Self.count).map { index in
            Recordings.make(
                .get, "/api/items/\(index)",
                requestHeaders: secrets && index % 10 == 0 ? [.authorization: "Bearer token-\(index)-a1b2c3d4e5f6"] : [:],
                body: Recordings.json(#"{"id":\#(index),"name":"item \#(index)","tags":["a","b"]}"#))
        }
        let store = try await CassetteStore.open(path: workspace.path(name), access: .readWrite)
        try await store.record(batch: interactions)
        try await store.close()
    }

    private func run(_ arguments: [String], outputOnTerminal: Bool = false, environment: [String: String] = terminal) async throws -> TerminalRun {
        try await runCassetteWithErrorOnTerminal(arguments, cwd: workspace.directory, outputOnTerminal: outputOnTerminal, environment: environment)
    }

    /// Every drawing of the line: `\r`, the text, erase to the end of the line.
    static var drawing: Regex<AnyRegexOutput> { try! Regex(#"\r[^\r\n\u{1B}]*\u{1B}\[K"#) }

    /// What the terminal shows once the progress drawings are taken out.
    static func withoutProgress(_ text: String) -> String {
        text.replacing(drawing, with: "")
    }

    /// Whether a drawing starts with `pattern` (a step and its count).
    static func shows(_ text: String, _ pattern: String) throws -> Bool {
        let step = try Regex(pattern)
        return text.matches(of: drawing).contains { text[$0.range].dropFirst().prefixMatch(of: step) != nil }
    }

    @Test("audit on a terminal: a redrawn count on stderr, cleared at the end; stdout as on a pipe")
    func auditDrawsAndClears() async throws {
        try await makeStore()
        let piped = try await workspace.run("audit")
        let shown = try await run(["audit"])
        #expect(shown.status == 0, "\(shown)")
        #expect(try Self.shows(shown.terminal, #"auditing +\d+/2000 interactions +\d+%"#), "\(shown)")
        #expect(shown.terminal.hasSuffix("\r\u{1B}[K"), "the line is cleared: \(shown)")
        #expect(Self.withoutProgress(shown.terminal).isEmpty, "nothing but progress on stderr: \(shown)")
        #expect(shown.stdout == piped.stdout)
        #expect(piped.stderr.isEmpty, "\(piped)")
    }

    @Test("stdout and stderr on one terminal: the report starts at the left margin, whole")
    func sharedTerminalKeepsTheOutputIntact() async throws {
        try await makeStore()
        let piped = try await workspace.run("audit", "--format", "json")
        let shown = try await run(["audit", "--format", "json"], outputOnTerminal: true)
        #expect(shown.status == 0, "\(shown)")
        #expect(try Self.shows(shown.terminal, #"auditing +\d+/2000"#), "\(shown)")
        let afterClearing = try #require(shown.terminal.components(separatedBy: "\r\u{1B}[K").last)
        #expect(afterClearing == piped.stdout, "\(shown)")
        #expect(Self.withoutProgress(shown.terminal) == piped.stdout)
    }

    @Test(
        "no progress at all under --quiet, with TERM=dumb, or with no terminal",
        arguments: [
            (["--quiet"], ["TERM": "xterm"]),
            ([], ["TERM": "dumb"]),
            (["--quiet"], ["TERM": "dumb"]),
        ] as [([String], [String: String])])
    func noProgress(flags: [String], environment: [String: String]) async throws {
        try await makeStore()
        let shown = try await run(["audit"] + flags, environment: environment)
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.terminal.isEmpty, "\(shown)")
        let piped = try await workspace.run(arguments: ["audit"] + flags, environment: ["TERM": "xterm"])
        #expect(piped.stderr.isEmpty, "\(piped)")
        #expect(piped.stdout == shown.stdout)
    }

    @Test("NO_COLOR keeps the line, which has no colour anyway")
    func noColor() async throws {
        try await makeStore()
        let shown = try await run(["audit"], environment: ["TERM": "xterm", "NO_COLOR": "1"])
        #expect(shown.status == 0, "\(shown)")
        #expect(try Self.shows(shown.terminal, #"auditing +\d+/2000 interactions"#), "\(shown)")
        #expect(!shown.terminal.contains(try Regex(#"\u{1B}\[[0-9;]*m"#)), "\(shown)")
    }

    @Test("redact shows checking, then redacting and erasing; the report is unchanged")
    func redact() async throws {
        try await makeStore(secrets: true)
        let dryRun = try await run(["redact", "--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun)")
        #expect(try Self.shows(dryRun.terminal, #"checking +\d+/2000 interactions"#), "\(dryRun)")
        #expect(dryRun.stdout.hasSuffix("Would redact 200 of 2000 interactions in cassettes.db; nothing written (dry run).\n"))
        let applied = try await run(["redact"])
        #expect(applied.status == 0, "\(applied)")
        #expect(try Self.shows(applied.terminal, #"redacting +\d+/2000 interactions"#), "\(applied)")
        #expect(try Self.shows(applied.terminal, #"erasing freed space \(VACUUM\)"#), "\(applied)")
        #expect(Self.withoutProgress(applied.terminal).isEmpty, "\(applied)")
        #expect(applied.stdout.hasSuffix("Redacted 200 of 2000 interactions in cassettes.db; the file was vacuumed and its WAL truncated.\n"))
    }

    @Test("merge shows each side read and the result written")
    func merge() async throws {
        try await makeStore("ours.db")
        for copy in ["base.db", "theirs.db"] {
            try FileManager.default.copyItem(atPath: workspace.path("ours.db"), toPath: workspace.path(copy))
        }
        let shown = try await run(["merge", "base.db", "ours.db", "theirs.db"])
        #expect(shown.status == 0, "\(shown)")
        for role in ["BASE", "OURS", "THEIRS"] {
            #expect(try Self.shows(shown.terminal, "checking \(role)"), "\(shown)")
            #expect(try Self.shows(shown.terminal, #"reading \#(role) +\d+/2000 recordings"#), "\(shown)")
        }
        #expect(try Self.shows(shown.terminal, #"writing +\d+/2000 recordings"#), "\(shown)")
        #expect(Self.withoutProgress(shown.terminal).isEmpty, "\(shown)")
        #expect(shown.stdout == "Merged ours.db: 2000 recordings, 0 taken from theirs.\n")
    }

    @Test("openapi and codegen show the recordings read and inferred")
    func openAPIAndCodegen() async throws {
        try await makeStore()
        let openAPI = try await run(["openapi", "--out", "openapi.json"])
        #expect(openAPI.status == 0, "\(openAPI)")
        #expect(try Self.shows(openAPI.terminal, #"reading +\d+/2000 recordings"#), "\(openAPI)")
        #expect(try Self.shows(openAPI.terminal, #"inferring schemas +\d+/2000 recordings"#), "\(openAPI)")
        #expect(Self.withoutProgress(openAPI.terminal).isEmpty, "\(openAPI)")
        #expect(openAPI.stdout.hasPrefix("wrote     openapi.json  (1 path, 1 operation from 2000 recordings"), "\(openAPI)")

        let codegen = try await run(["codegen", "swift", "--out", "Models"])
        #expect(codegen.status == 0, "\(codegen)")
        #expect(try Self.shows(codegen.terminal, #"inferring types +\d+/2000 recordings"#), "\(codegen)")
        #expect(Self.withoutProgress(codegen.terminal).isEmpty, "\(codegen)")
        #expect(codegen.stdout.contains("GET /api/items/{id}"), "\(codegen)")
    }

    @Test("import shows the entries converted and stored")
    func importHAR() async throws {
        try await makeStore()
        let export = try await workspace.run("export", "--har", "all.har")
        #expect(export.status == 0, "\(export)")
        let shown = try await run(["import", "all.har", "--db", "imported.db"])
        #expect(shown.status == 0, "\(shown)")
        #expect(try Self.shows(shown.terminal, "reading the HAR file"), "\(shown)")
        #expect(try Self.shows(shown.terminal, #"converting +\d+/2000 entries"#), "\(shown)")
        #expect(try Self.shows(shown.terminal, #"storing +\d+/2000 entries"#), "\(shown)")
        #expect(Self.withoutProgress(shown.terminal).isEmpty, "\(shown)")
        #expect(shown.stdout.hasPrefix("Imported 2000 entries (2000 keys) from all.har"), "\(shown)")
        #expect(try await workspace.count(in: "imported.db") == Self.count)
    }

    @Test("verify shows the requests answered by the live API")
    func verify() async throws {
        try await withSampleAPI { baseURL in
            let store = try await CassetteStore.open(path: workspace.storePath, access: .readWrite)
            let recorder = try await RecordingTransport.open(store: store, cassette: "dev", mode: .all, upstream: try CurlTransport())
            for target in ["/api/health", "/api/users", "/api/users/1", "/api/users/2"] {
                _ = try await recorder.send(TransportRequest(method: .get, url: URL(string: baseURL.absoluteString + target)!))
            }
            try await store.close()
            let shown = try await run(["verify", "--upstream", baseURL.absoluteString])
            #expect(shown.status == 0, "\(shown)")
            #expect(try Self.shows(shown.terminal, #"reading +\d/4 recordings"#), "\(shown)")
            #expect(try Self.shows(shown.terminal, #"verifying +\d/4 requests"#), "\(shown)")
            #expect(Self.withoutProgress(shown.terminal).isEmpty, "\(shown)")
            #expect(shown.stdout.hasPrefix("sent 4 requests to \(baseURL.absoluteString) (4 answered)"), "\(shown)")
        }
    }
}
