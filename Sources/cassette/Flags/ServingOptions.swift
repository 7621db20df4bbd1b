import ArgumentParser
import CassetteProxy
import CassetteTools
import Foundation
import Logging
import WellPlateCore
import WellPlateNetworking

/// The flags of every command that serves a cassette (`record`, `replay` and `run`), and the one
/// place that turns them and cassette.json into the proxy: a flag added here means the same on
/// each of them, so no command can fall behind the others.
struct ServingOptions: ParsableArguments {
    @OptionGroup var store: StoreOptions
    @OptionGroup var upstreamFlags: UpstreamFlags
    @OptionGroup(title: "Forward proxy") var forwardFlags: ForwardFlags
    @OptionGroup var proxyFlags: ProxyFlags
    @OptionGroup(title: "Sessions") var sessionFlags: SessionFlags
    @OptionGroup(title: "Upstream connection") var forwardingFlags: ForwardingFlags
    @OptionGroup var cookieRedaction: CookieRedactionFlags

    func validate() throws {
        try forwardFlags.validate(upstreams: upstreamFlags)
    }

    /// Whether requests have somewhere to go: an upstream, or every host with --forward.
    var canForward: Bool { upstreamFlags.isGiven || forwardFlags.forward }

    /// The proxy these flags describe, serving in `mode` (with `replaying`'s `--on-miss` for the
    /// commands that take replay's flags); nothing is opened or started. `portUnlessGiven` replaces
    /// cassette.json's port when `--port` is not given (`run` listens on a free one); `fixtures`
    /// adds their drift to the UI's Drift view.
    func makeRunner(
        mode: RecordMode, replaying: ReplayFlags? = nil, portUnlessGiven: Int? = nil, fixtures: String? = nil, logger: Logger,
        requestLogDescriptor: Int32
    ) throws -> ProxyRunner {
        let configFile = try store.loadConfig()
        var settings = proxyFlags.settings(from: configFile)
        if let portUnlessGiven, proxyFlags.port == nil { settings.port = portUnlessGiven }
        sessionFlags.apply(to: &settings)
        forwardingFlags.apply(to: &settings, configFile: configFile, environment: upstreamFlags.env)
        try replaying?.apply(to: &settings, configFile: configFile)
        if let forward = forwardFlags.options {
            settings.forward = forward
        } else {
            try upstreamFlags.apply(to: &settings, configFile: configFile, tlsFlags: forwardingFlags.tls.flags)
        }
        var runner = ProxyRunner(
            storePath: configFile.databasePath,
            cassette: store.cassetteName(environment: upstreamFlags.env),
            policy: replaying?.policy(mode: mode) ?? ServingPolicy(mode: mode),
            settings: settings,
            matchingRules: try proxyFlags.matchingRules(from: configFile),
            redactor: cookieRedaction.redactor(from: configFile),
            sequencePolicy: replaying?.sequence.policy ?? .repeatLast,
            tracksUsage: replaying?.freshness.tracksUsage(configFile: configFile) ?? false,
            requestLogDescriptor: requestLogDescriptor,
            logger: logger
        )
        // The UI's Drift view: the store's audit findings, masked.
        let findings = UIFindings(fixtures: fixtures, cassette: runner.cassetteName)
        runner.findings = { findings.provider(store: $0) }
        return runner
    }
}
