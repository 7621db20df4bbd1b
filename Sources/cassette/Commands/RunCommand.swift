import ArgumentParser
import CassetteForward
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import CassetteUI
import Foundation
import Logging
import WellPlateCore
import WellPlateNetworking

/// `cassette run -- COMMAND`: the CI one-liner. Starts the proxy on a free port, runs the command
/// against it, stops the proxy and exits with the command's status.
struct RunCommand: AsyncParsableCommand, ServingCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a command against a proxy on a free port, then exit with its status.",
        discussion: """
            COMMAND sees CASSETTE_URL and API_BASE_URL set to the proxy's address (WellPlateNetworking's \
            AppConfig reads API_BASE_URL), and CASSETTE_URLS set to every listener's address, space-separated, \
            in upstream order (several with --upstream repeated). With --forward, also HTTP_PROXY, \
            HTTPS_PROXY (and their lower-case forms) set to the proxy and CASSETTE_CA_CERT to the \
            certificate its clients must trust. The proxy's lines go to stderr so the command owns stdout. \
            --report FILE writes an HTML report of the run (see `cassette report`); with \
            --fixtures DIR it shows the drift of the recordings from those fixtures too.

            The exit status is COMMAND's, or 1 when --strict saw a miss and COMMAND succeeded.

            Examples:
              cassette run -- swift test
              cassette run --strict -- ./scripts/ui-tests.sh
              cassette run --mode missing --upstream http://127.0.0.1:8081 -- ./smoke.sh
            """
    )

    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case replay, record, missing

        /// The record mode each name stands for.
        var recordMode: RecordMode {
            switch self {
            case .replay: .replayOnly
            case .record: .all
            case .missing: .missing
            }
        }
    }

    @OptionGroup var serving: ServingOptions
    @OptionGroup var replaying: ReplayFlags

    @Option(
        help: ArgumentHelp("replay (the default), record (forward and record everything) or missing (replay what exists, record the rest).", valueName: "mode"))
    var mode: Mode = .replay

    @Option(
        help: ArgumentHelp(
            "Write an HTML report of the run: every request, misses with their nearest recordings, unused recordings, the sessions it opened.",
            valueName: "file"))
    var report: String?

    @Option(
        help: ArgumentHelp(
            "With --report: the fixtures to compare the recordings with, as `cassette diff --fixtures DIR` does (the report's Drift view).", valueName: "dir"))
    var fixtures: String?

    @Argument(parsing: .postTerminator, help: "The command to run, after --.")
    var command: [String] = []

    func validate() throws {
        if command.isEmpty {
            throw ValidationError("give the command to run after --, e.g. cassette run -- swift test")
        }
        if fixtures != nil && report == nil {
            throw ValidationError("--fixtures adds drift to the report of the run; add --report OUT.html")
        }
        if fixtures?.isEmpty == true { throw ValidationError("--fixtures needs the directory that holds the fixtures") }
        if mode != .replay && !serving.canForward {
            throw ValidationError("--mode \(mode.rawValue) forwards requests: pass --env NAME or --upstream URL")
        }
    }

    /// The proxy of the run, on a free port unless --port is given, its request lines on stderr
    /// since the command owns stdout; the command itself is not started.
    func makeRunner(logger: Logger = TerminalLogHandler.logger, requestLogDescriptor: Int32 = STDERR_FILENO) throws -> ProxyRunner {
        try serving.makeRunner(
            mode: mode.recordMode, replaying: replaying, portUnlessGiven: 0, fixtures: fixtures, logger: logger, requestLogDescriptor: requestLogDescriptor)
    }

    func run() async throws {
        let runner = try makeRunner()
        let configFile = try serving.store.loadConfig()
        // The Drift view of the proxy's page and of the report: a bad --fixtures fails before the
        // command runs, not in a half-written report.
        let findings = UIFindings(fixtures: fixtures, cassette: runner.cassetteName)
        try await findings.check(storePath: configFile.databasePath)
        let lifecycle = ProxyLifecycle(runner: runner, toStandardError: true)
        let signals = SignalWaiter()
        let running = try await lifecycle.start()
        if report != nil { running.keepRequests() }
        var environment = [
            "CASSETTE_URL": running.address,
            "API_BASE_URL": running.address,
            "CASSETTE_URLS": running.addresses.joined(separator: " "),
        ]
        if let forward = serving.forwardFlags.options {
            // The command's clients use the proxy as their proxy, and find the certificate to trust.
            for name in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] { environment[name] = running.address }
            environment["CASSETTE_CA_CERT"] = CertificateAuthority.certificatePath(in: forward.caDirectory)
        }
        let status = await ChildCommand.run(command, environment: environment, forwarding: signals)
        signals.cancel()
        let (requests, unused, sessions) = (running.keptRequests, running.unusedKeys, report == nil ? [] : running.sessionPictures)
        let counters = await lifecycle.stop(running)
        if let report {
            // The store is closed with the proxy: the report reads it again, as it now is.
            let opened = try await serving.store.openStore(configFile, access: .readOnly)
            let run = HTMLReport.Run(
                command: command.joined(separator: " "), requests: requests.requests, unused: unused, cassette: runner.cassetteName,
                mode: mode.rawValue, sessions: sessions)
            var catalog = UICatalog(store: opened)
            catalog.findings = findings.provider(store: opened)
            do {
                try await ReportFile.write(HTMLReport(catalog: catalog, run: run), to: report)
            } catch {
                try? await opened.close()
                throw error
            }
            try? await opened.close()
            StandardStream.error.write(
                "report of the run written to \(report)\(requests.dropped > 0 ? " (the first \(requests.requests.count) requests; \(requests.dropped) more left out)" : "")\n"
            )
        }
        if status != 0 {
            throw ExitCode(status)
        }
        if replaying.strict && counters.missed > 0 {
            throw CLIError("--strict: \(counters.missed) request(s) had no recording", exitStatus: 1)
        }
    }
}
