import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Starting `record` and `replay` wrong: each mistake is one clear line on stderr and a status
/// that scripts can tell apart (1 for runtime failures, 2 for usage errors).
@Suite("Proxy command-line errors")
final class ProxyCLIErrorTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    func recordFixture(cassette: String = "dev") async throws {
        try await workspace.record([Recordings.make(.get, "/api/health", cassette: cassette)])
    }

    /// The stderr lines of a failed run.
    func errorLines(_ result: CommandResult) -> [Substring] {
        result.stderr.split(separator: "\n")
    }

    @Test func listeningBeyondLoopbackWarnsOnStderr() async throws {
        try await recordFixture()
        try await withReplayer(store: workspace.storePath, arguments: ["--host", "0.0.0.0"]) { replayer async throws in
            #expect(replayer.url.host == "0.0.0.0")
            #expect(try await replayer.get("/api/health").cassetteSource == "hit")
            #expect(try await replayer.stop() == .exited(0))
            let warning = try #require(replayer.process.standardError.split(separator: "\n").first)
            #expect(warning.hasPrefix("warning: listening on 0.0.0.0"), "\(warning)")
            #expect(warning.contains("--host 127.0.0.1"))
        }
    }

    @Test func loopbackDoesNotWarn() async throws {
        try await recordFixture()
        try await withReplayer(store: workspace.storePath) { replayer async throws in
            #expect(try await replayer.stop() == .exited(0))
            #expect(replayer.process.standardError.isEmpty)
        }
    }

    @Test func aTakenPortIsOneLineAndStatus1() async throws {
        try await recordFixture()
        try await withReplayer(store: workspace.storePath) { running async throws in
            let result = try await workspace.run("replay", "--port", String(running.port))
            #expect(result.status == 1, "\(result)")
            #expect(
                result.stderr == "error: cannot listen on 127.0.0.1:\(running.port): the port is already in use; pick another --port (0 picks a free one)\n")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func recordWithoutAnUpstreamIsAUsageError() async throws {
        let result = try await workspace.run("record", "--port", "0")
        #expect(result.status == 2, "\(result)")
        #expect(
            errorLines(result).first
                == "Error: record needs an upstream: pass --env NAME (from cassette.json), --upstream URL, or --forward to record every host its clients call")
        #expect(!workspace.fileExists("cassettes.db"))
    }

    @Test func replayOfAMissingStoreIsOneLineAndStatus1() async throws {
        let result = try await workspace.run("replay", "--port", "0", "--db", "nowhere.db")
        #expect(result.status == 1, "\(result)")
        #expect(errorLines(result) == ["error: nowhere.db does not exist; record a session first (`cassette record`) or pass --db with the right path"])
        #expect(!workspace.fileExists("nowhere.db"))
    }

    @Test func replayOfAnEmptyStoreSaysItHoldsNoRecordings() async throws {
        try await workspace.record([])
        let result = try await workspace.run("replay", "--port", "0")
        #expect(result.status == 1, "\(result)")
        #expect(errorLines(result) == ["error: cassettes.db holds no recordings; record a session first (`cassette record`) or pass --db with the right path"])
    }

    @Test func replayOfAnUnknownCassetteNamesTheCassettesThatExist() async throws {
        try await recordFixture(cassette: "staging")
        try await recordFixture(cassette: "ci")
        let result = try await workspace.run("replay", "--port", "0", "--cassette", "nightly")
        #expect(result.status == 1, "\(result)")
        let lines = errorLines(result)
        #expect(lines.count == 1)
        #expect(lines.first?.contains("no cassette named 'nightly'") == true)
        #expect(lines.first?.contains("ci, staging") == true, "\(result)")

        // Without --cassette the default "dev" is the one missing.
        let defaulted = try await workspace.run("replay", "--port", "0")
        #expect(defaulted.status == 1)
        #expect(defaulted.stderr.contains("no cassette named 'dev' (cassettes: ci, staging); check the --cassette name"))
    }

    @Test func recordWithAnEnvironmentFromTheConfigurationFileInTheWorkingDirectory() async throws {
        let upstream = try await withSampleAPI { api async throws in
            try workspace.write(
                """
                {"database": "from-config.db", "environments": {"dev": {"upstream": "\(api.absoluteString)"}, "staging": {"upstream": "http://127.0.0.1:9"}}}
                """, to: "cassette.json")
            try await withProxy(["record", "--env", "dev", "--port", "0"], workingDirectory: workspace.directory.path) { recorder async throws in
                #expect(try await recorder.get("/api/health").cassetteSource == "recorded")
            }
            try await withProxy(["replay", "--env", "dev", "--port", "0"], workingDirectory: workspace.directory.path) { replayer async throws in
                #expect(try await replayer.get("/api/health").cassetteSource == "hit")
            }
            return api
        }
        let stored = try await StoreFiles.interactions(at: workspace.path("from-config.db"))
        #expect(stored.map(\.cassette) == ["dev"])
        #expect(stored.first?.url == upstream.appending(pathAndQuery: "/api/health").absoluteString)
        #expect(!workspace.fileExists("cassettes.db"))
    }

    @Test func anUnknownEnvironmentListsTheKnownOnes() async throws {
        try workspace.write(
            #"{"environments": {"dev": {"upstream": "http://127.0.0.1:8081"}, "staging": {"upstream": "http://127.0.0.1:8082"}}}"#, to: "cassette.json")
        let result = try await workspace.run("record", "--env", "prod", "--port", "0")
        #expect(result.status == 2, "\(result)")
        let lines = errorLines(result)
        #expect(lines.count == 1)
        #expect(lines.first?.contains("unknown environment 'prod'") == true, "\(result)")
        #expect(lines.first?.contains("dev, staging") == true)
    }

    @Test func badLimitFlagsAreOneLineErrors() async throws {
        for (arguments, message) in [
            (["--max-sessions=-1"], "--max-sessions -1 is out of range; use a whole number from 0 to 10000"),
            (["--session-idle-timeout", "10x"], "--session-idle-timeout 10x is not a duration from 100ms to 24h; use seconds or"),
            (["--session-idle-timeout", "50ms"], "from 100ms to 24h"),
            (["--session-idle-timeout", "2d"], "from 100ms to 24h"),
        ] {
            let result = try await workspace.run(arguments: ["replay", "--port", "0"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test func sessionsOnlyIsRefusedWhereItCouldServeNothing() async throws {
        let none = try await workspace.run("replay", "--port", "0", "--db", workspace.path("c.db"), "--sessions-only", "--max-sessions", "0")
        #expect(none.status == 2, "\(none)")
        #expect(none.stderr.contains("--sessions-only with --max-sessions 0 would serve nothing"), "\(none)")
        let forward = try await workspace.run("replay", "--port", "0", "--db", workspace.path("c.db"), "--sessions-only", "--forward")
        #expect(forward.status == 2, "\(forward)")
        #expect(forward.stderr.contains("--sessions-only is for a reverse proxy"), "\(forward)")
    }

    @Test func theSameHostTwiceIsRefusedWithAClearMessage() async throws {
        let result = try await workspace.run(
            "record", "--upstream", "http://127.0.0.1:9/a", "--upstream", "http://127.0.0.1:9/b", "--port", "0", "--db", workspace.path("c.db"))
        #expect(result.status == 64 || result.status == 2, "\(result)")
        #expect(result.stderr.contains("are the same host"), "\(result)")
    }

    @Test(arguments: ["0", "-1", "3601", "nan", "soon"])
    func anOutOfRangeUpstreamTimeoutIsAUsageError(value: String) async throws {
        let result = try await workspace.run("record", "--upstream", "http://127.0.0.1:1", "--port", "0", "--upstream-timeout", value)
        #expect(result.status == 64 || result.status == 2, "\(result)")
        #expect(result.stderr.contains("--upstream-timeout"), "\(result)")
    }

    @Test func anOutOfRangeUpstreamTimeoutInTheFileNamesTheKey() async throws {
        try workspace.write(#"{"upstreamTimeout": 0}"#, to: "cassette.json")
        let result = try await workspace.run("record", "--upstream", "http://127.0.0.1:1", "--port", "0")
        #expect(result.status != 0)
        #expect(result.stderr.contains("\"upstreamTimeout\": is the number 0, not a number of seconds from 0.1 to 3600"), "\(result)")
    }

    @Test func aMissingCacertFileStopsTheProxyAtStartWithAClearMessage() async throws {
        let result = try await workspace.run(
            "record", "--upstream", "https://127.0.0.1:1", "--port", "0", "--db", workspace.path("c.db"), "--cacert", "nope.pem")
        #expect(result.status == 2)
        #expect(result.stderr.contains("nope.pem: it does not exist"), "\(result)")
        #expect(result.stderr.contains("--cacert"), "\(result)")
    }

    @Test func forwardOptionsWithoutForwardOrWithAnUpstreamAreRefused() async throws {
        let filter = try await workspace.run("record", "--upstream", "http://127.0.0.1:9", "--host-filter", "a.example")
        #expect(filter.status != 0 && filter.stderr.contains("add --forward"), "\(filter)")
        let both = try await workspace.run("record", "--forward", "--upstream", "http://127.0.0.1:9")
        #expect(both.status != 0 && both.stderr.contains("takes no --upstream"), "\(both)")
    }

    @Test(arguments: ["302", "600", "abc"])
    func aMissStatusThatIsNotAnErrorIsAUsageError(status: String) async throws {
        try await recordFixture()
        let result = try await workspace.run("replay", "--port", "0", "--miss-status", status)
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").first?.contains("--miss-status") == true, "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test func aStaleValueTheConfigurationFileDoesNotKnowIsAUsageError() async throws {
        try await workspace.record([Recordings.make(.get, "/old")])
        try workspace.write(#"{"stale": "later"}"#, to: "cassette.json")
        let bad = try await workspace.run("replay", "--port", "0")
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("stale"), "\(bad)")
    }
}
