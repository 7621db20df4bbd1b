import ArgumentParser
import Foundation
import WellPlateNetworking

/// How forwarded requests reach the upstream: TLS settings and the timeout. Shared by `record`,
/// `replay` (for `--on-miss passthrough|record`) and `run`.
struct ForwardingOptions: ParsableArguments {
    @OptionGroup var tls: TLSOptions

    @Option(help: ArgumentHelp("Seconds a forwarded request may take before the client gets a 504 (default: \"upstreamTimeout\" from the configuration file, else 30; 0.1 to 3600).", valueName: "seconds"))
    var upstreamTimeout: Double?

    func validate() throws {
        if let upstreamTimeout {
            let range = ProxyConfig.upstreamTimeoutRange
            guard upstreamTimeout.isFinite, range.contains(upstreamTimeout) else {
                throw ValidationError("--upstream-timeout must be a number of seconds from \(ProxyConfig.plain(range.lowerBound)) to \(ProxyConfig.plain(range.upperBound)), got \(ProxyConfig.plain(upstreamTimeout))")
            }
        }
    }

    func apply(to configuration: inout ProxyConfiguration, settings: ProxyConfig, environment: String?) {
        configuration.tls = tls.configuration(settings: settings, environment: environment)
        configuration.upstreamTimeout = upstreamTimeout.map { .milliseconds(Int64(($0 * 1000).rounded())) }
            ?? settings.upstreamTimeout ?? ProxyConfig.defaultUpstreamTimeout
    }
}
