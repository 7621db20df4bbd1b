import ArgumentParser
import Foundation
import WellPlateNetworking

/// `cassette record`: a reverse proxy that forwards to the real API and records every exchange.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Run a proxy that forwards to the real API and records every exchange.",
        discussion: """
            Point the app (or curl, a simulator, any HTTP client) at the printed address instead of
            the API. Each answered request is committed to the store before the client gets it, so
            stopping the proxy (Ctrl-C, SIGTERM) or a crash loses nothing already answered.

            Modes: once records a request only if the cassette has none for it (else replays);
            missing (the default) replays what is recorded and records the rest, including repeats
            beyond the recorded sequence; all forwards everything and replaces the cassette's
            earlier recordings of each request.

            Examples:
              cassette record --upstream http://127.0.0.1:8081
              cassette record --env dev --port 0
              cassette record --env staging --cassette staging-login --mode all
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var upstreamOptions: UpstreamOptions
    @OptionGroup var proxy: ProxyOptions
    @OptionGroup(title: "Upstream connection") var forwarding: ForwardingOptions

    @Option(help: ArgumentHelp("once, missing or all (see above).", valueName: "mode"))
    var mode: RecordModeOption = .missing

    func validate() throws {
        if upstreamOptions.env == nil && upstreamOptions.upstream == nil {
            throw ValidationError("record needs an upstream: pass --env NAME (from cassette.json) or --upstream URL")
        }
    }

    func run() async throws {
        let settings = try store.loadConfig()
        let upstream = try upstreamOptions.resolve(settings: settings)
        var configuration = proxy.configuration(settings: settings)
        forwarding.apply(to: &configuration, settings: settings, environment: upstreamOptions.env)
        configuration.upstream = upstream
        let runner = ProxyRunner(
            storePath: settings.databasePath,
            cassette: store.cassetteName(environment: upstreamOptions.env),
            mode: mode.mode,
            proxy: configuration,
            matchingRules: settings.explicitMatchingRules,
            redactor: settings.redactor,
            modeName: "record"
        )
        try await runner.serveUntilSignalled()
    }
}

extension ProxyRunner {
    /// Serves until SIGINT or SIGTERM, then stops gracefully; `strict` turns misses into status 1.
    func serveUntilSignalled(strict: Bool = false) async throws {
        let signals = SignalWaiter()
        let running = try await start()
        _ = await signals.next()
        let counters = await stop(running)
        if strict && counters.missed > 0 {
            throw CLIError("--strict: \(counters.missed) request(s) had no recording", exitStatus: 1)
        }
    }
}
