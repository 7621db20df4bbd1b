import ArgumentParser
import Foundation
import WellPlateNetworking

/// `cassette replay`: serves recordings with no backend at all.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Serve recorded responses with no backend (for CI and offline work).",
        discussion: """
            Answers every request from the cassette held in memory: status, headers and body
            byte-for-byte as recorded. Identical requests get their recordings in recorded order,
            then the last one again (--sequence changes that). A request without a recording gets
            a \(404) whose JSON body names its normalized key and the nearest recordings, with the
            header X-Cassette: miss. GET /__cassette/health and /__cassette/stats serve scripts.

            Examples:
              cassette replay
              cassette replay --port 0 --strict
              cassette replay --cassette staging --latency recorded
              cassette replay --on-miss passthrough --upstream http://127.0.0.1:8081
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var upstreamOptions: UpstreamOptions
    @OptionGroup var proxy: ProxyOptions
    @OptionGroup(title: "Upstream connection") var forwarding: ForwardingOptions
    @OptionGroup var replay: ReplayOptions

    func run() async throws {
        let settings = try store.loadConfig()
        var configuration = proxy.configuration(settings: settings)
        forwarding.apply(to: &configuration, settings: settings, environment: upstreamOptions.env)
        replay.apply(to: &configuration)
        configuration.upstream = try upstreamOptions.resolve(settings: settings)
        let runner = ProxyRunner(
            storePath: settings.databasePath,
            cassette: store.cassetteName(environment: upstreamOptions.env),
            mode: .none,
            proxy: configuration,
            matchingRules: settings.explicitMatchingRules,
            redactor: settings.redactor,
            sequencePolicy: replay.sequence.policy,
            modeName: "replay"
        )
        try await runner.serveUntilSignalled(strict: replay.strict)
    }
}
