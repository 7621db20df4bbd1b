import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// `cassette run -- COMMAND`: the proxy around one command, whose exit status becomes the tool's.
@Suite("cassette run")
final class ProxyRunCommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let healthBody = #"{"status":"ok"}"#

    func recordHealth() async throws {
        try await workspace.record([Recordings.make(.get, "/api/health", body: Recordings.json(Self.healthBody))])
    }

    func run(_ arguments: String...) async throws -> CommandResult {
        try await workspace.run(arguments: ["run", "--db", workspace.storePath] + arguments)
    }

    @Test func theCommandReachesTheProxyThroughItsEnvironmentAndItsSuccessIsTheExitStatus() async throws {
        try await recordHealth()
        let result = try await run("--", "sh", "-c", #"curl -sf "$CASSETTE_URL/api/health" && test "$API_BASE_URL" = "$CASSETTE_URL""#)
        #expect(result.status == 0, "\(result)")
        // The command owns stdout; the proxy's lines go to stderr.
        #expect(result.stdout == Self.healthBody)
        #expect(result.stderr.hasPrefix("listening on http://127.0.0.1:"))
        #expect(result.stderr.contains("GET /api/health 200 "))
    }

    @Test func aFailingCommandsStatusIsPassedThrough() async throws {
        try await recordHealth()
        let result = try await run("--", "sh", "-c", "exit 7")
        #expect(result.status == 7, "\(result)")
    }

    /// The command starts as from a shell: SIGPIPE (ignored inside cassette, by SwiftNIO) and every
    /// other signal at its default, none blocked.
    @Test func theCommandStartsWithDefaultSignalDispositions() async throws {
        try await recordHealth()
        let result = try await run("--", "grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status")
        #expect(result.status == 0, "\(result)")
        let masks = Dictionary(
            uniqueKeysWithValues: result.stdout.split(separator: "\n").compactMap { line -> (String, UInt64)? in
                let parts = line.split(separator: ":")
                guard parts.count == 2, let mask = UInt64(parts[1].trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
                return (String(parts[0]), mask)
            })
        let pipeBit: UInt64 = 1 << (UInt64(SIGPIPE) - 1)
        #expect(masks["SigIgn"].map { $0 & pipeBit } == 0, "SIGPIPE is not ignored: \(result.stdout)")
        // Signals 1-31: glibc keeps two real-time signals of its own out of reach.
        #expect(masks["SigIgn"].map { $0 & 0x7FFF_FFFF } == 0, "\(result.stdout)")
        #expect(masks["SigBlk"] == 0, "\(result.stdout)")
    }

    @Test func aCommandKilledBySignalExitsWith128PlusTheSignal() async throws {
        try await recordHealth()
        let result = try await run("--", "sh", "-c", "kill -TERM $$")
        #expect(result.status == 128 + 15, "\(result)")
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalToCassetteIsForwardedToTheCommand(signal: Int32) async throws {
        try await recordHealth()
        let arguments = ["run", "--db", workspace.storePath, "--quiet", "--", "sh", "-c", "echo ready; exec sleep 30"]
        try await withChildProcess("cassette", arguments: arguments, environment: ["NO_COLOR": "1"]) { process async throws in
            #expect(try await process.firstLineOfOutput() == "ready")
            process.send(signal: signal)
            #expect(try await process.waitForExit(timeout: Patience.process) == .exited(128 + signal))
        }
    }

    @Test func strictTurnsAMissIntoStatus1WhenTheCommandSucceeded() async throws {
        try await recordHealth()
        let missing = #"curl -s "$CASSETTE_URL/api/not-recorded" > /dev/null"#
        let strict = try await run("--strict", "--", "sh", "-c", missing)
        #expect(strict.status == 1, "\(strict)")
        #expect(strict.stderr.contains("--strict: 1 request(s) had no recording"))

        let lenient = try await run("--", "sh", "-c", missing)
        #expect(lenient.status == 0, "\(lenient)")
    }

    /// `--redact-all-cookies` on `run` means what it means on `record`: a plain cookie the
    /// upstream sets is stored as `REDACTED` too; without it, `theme=dark` is kept.
    @Test(arguments: [true, false])
    func redactAllCookiesRedactsEveryCookieRecorded(all: Bool) async throws {
        try await PythonUpstream.with(in: workspace.directory.path) { upstream in
            let flags = ["--mode", "record", "--upstream", upstream.absoluteString] + (all ? ["--redact-all-cookies"] : [])
            let result = try await workspace.run(
                arguments: ["run", "--db", workspace.storePath] + flags + [
                    "--", "sh", "-c", #"curl -sf "$CASSETTE_URL/api/cookies/set?theme=dark" > /dev/null"#,
                ])
            #expect(result.status == 0, "\(result)")
        }
        let stored = try #require(try await StoreFiles.interactions(at: workspace.storePath).first)
        #expect(stored.responseHeaders[.setCookie]?.hasPrefix(all ? "theme=REDACTED" : "theme=dark") == true, "\(stored.responseHeaders)")
    }

    @Test func aCommandThatDoesNotExistExitsWith127() async throws {
        try await recordHealth()
        let result = try await run("--", "no-such-command-for-cassette")
        #expect(result.status == 127, "\(result)")
        #expect(result.stderr.contains("cannot run no-such-command-for-cassette: command not found"), "\(result)")
    }

    @Test func aCommandThatCannotBeExecutedExitsWith126() async throws {
        try await recordHealth()
        try workspace.write("echo never\n", to: "not-executable.sh")
        let result = try await run("--", workspace.path("not-executable.sh"))
        #expect(result.status == 126, "\(result)")
        #expect(result.stderr.contains("cannot run \(workspace.path("not-executable.sh")): Permission denied"), "\(result)")
    }

    @Test func aCommandGivenByPathRuns() async throws {
        try await recordHealth()
        try workspace.write("#!/bin/sh\nexit 5\n", to: "script.sh")
        chmod(workspace.path("script.sh"), 0o755)
        let result = try await run("--", workspace.path("script.sh"))
        #expect(result.status == 5, "\(result)")
    }

    @Test func noCommandIsAUsageError() async throws {
        try await recordHealth()
        let result = try await run()
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.split(separator: "\n").first?.contains("give the command to run after --") == true)
        #expect(result.stdout.isEmpty)
    }
}
