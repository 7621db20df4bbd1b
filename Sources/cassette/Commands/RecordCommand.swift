import ArgumentParser
import CassetteProxy
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette record`: a reverse proxy that forwards to the real API and records every exchange.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Run a proxy that forwards to the real API and records every exchange.",
        discussion: """
            Point the app (or curl, a simulator, any HTTP client) at the printed address instead of \
            the API. Each answered request is committed to the store before the client gets it, so \
            stopping the proxy (Ctrl-C, SIGTERM) or a crash loses nothing already answered.

            Modes: once records a request only if the cassette has none for it (else replays); \
            missing (the default) replays what is recorded and records the rest, including repeats \
            beyond the recorded sequence; all forwards everything and replaces the cassette's \
            earlier recordings of each request.

            Examples:
              cassette record --upstream http://127.0.0.1:8081
              cassette record --env dev --port 0
              cassette record --env staging --cassette staging-login --mode all
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var upstreamFlags: UpstreamFlags
    @OptionGroup var proxyFlags: ProxyFlags
    @OptionGroup(title: "Sessions") var sessionFlags: SessionFlags
    @OptionGroup(title: "Upstream connection") var forwardingFlags: ForwardingFlags

    @Option(help: ArgumentHelp("once, missing or all (see above).", valueName: "mode"))
    var mode: RecordModeOption = .missing

    func validate() throws {
        if upstreamFlags.env == nil && upstreamFlags.upstream == nil {
            throw ValidationError("record needs an upstream: pass --env NAME (from cassette.json) or --upstream URL")
        }
    }

    func run() async throws {
        let configFile = try store.loadConfig()
        let upstream = try upstreamFlags.resolve(configFile)
        var settings = proxyFlags.settings(from: configFile)
        sessionFlags.apply(to: &settings)
        forwardingFlags.apply(to: &settings, configFile: configFile, environment: upstreamFlags.env)
        settings.upstream = upstream
        let runner = ProxyRunner(
            storePath: configFile.databasePath,
            cassette: store.cassetteName(environment: upstreamFlags.env),
            mode: mode.mode,
            settings: settings,
            matchingRules: configFile.explicitMatchingRules,
            redactor: configFile.redactor,
            modeName: "record"
        )
        try await runner.serveUntilSignalled()
    }
}
