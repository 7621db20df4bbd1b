import ArgumentParser
import CassetteProxy
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette replay`: serves recordings with no backend at all.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Serve recorded responses with no backend (for CI and offline work).",
        discussion: """
            Answers every request from the cassette held in memory: status, headers and body \
            byte-for-byte as recorded. Identical requests get their recordings in recorded order, \
            then the last one again (--sequence changes that). A request without a recording gets \
            a \(404) whose JSON body names its normalized key and the nearest recordings, with the \
            header X-Cassette: miss. GET /__cassette/health and /__cassette/stats serve scripts.

            Examples:
              cassette replay
              cassette replay --port 0 --strict
              cassette replay --cassette staging --latency recorded
              cassette replay --on-miss passthrough --upstream http://127.0.0.1:8081
              cassette replay --max-age 90 --stale fail --strict
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var upstreamFlags: UpstreamFlags
    @OptionGroup var proxyFlags: ProxyFlags
    @OptionGroup(title: "Sessions") var sessionFlags: SessionFlags
    @OptionGroup(title: "Upstream connection") var forwardingFlags: ForwardingFlags
    @OptionGroup var replayFlags: ReplayFlags
    @OptionGroup var freshnessFlags: FreshnessFlags

    func run() async throws {
        let configFile = try store.loadConfig()
        var settings = proxyFlags.settings(from: configFile)
        sessionFlags.apply(to: &settings)
        forwardingFlags.apply(to: &settings, configFile: configFile, environment: upstreamFlags.env)
        replayFlags.apply(to: &settings)
        settings.stalePolicy = try freshnessFlags.policy(configFile: configFile)
        settings.upstream = try upstreamFlags.resolve(configFile)
        let runner = ProxyRunner(
            storePath: configFile.databasePath,
            cassette: store.cassetteName(environment: upstreamFlags.env),
            mode: .replayOnly,
            settings: settings,
            matchingRules: configFile.explicitMatchingRules,
            redactor: configFile.redactor,
            sequencePolicy: replayFlags.sequence.policy,
            modeName: "replay",
            tracksUsage: freshnessFlags.tracksUsage(configFile: configFile)
        )
        try await runner.serveUntilSignalled(strict: replayFlags.strict)
    }
}
