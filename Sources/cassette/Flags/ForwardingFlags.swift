import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// How forwarded requests reach the upstream: TLS settings and the timeout. Shared by `record`,
/// `replay` (for `--on-miss passthrough|record`) and `run`.
struct ForwardingFlags: ParsableArguments {
    @OptionGroup var tls: TLSFlags

    @Option(
        help: ArgumentHelp(
            "Seconds the upstream may stay silent: waiting longer for an answer gets the client a 504; a streamed answer may last longer but is cut after a silence this long (measured in whole seconds over libcurl's 5 s window). Default: \"upstreamTimeout\" from the configuration file, else 30; 0.1 to 3600.",
            valueName: "seconds"))
    var upstreamTimeout: Double?

    func validate() throws {
        if let upstreamTimeout {
            let range = CassetteConfigFile.upstreamTimeoutRange
            guard upstreamTimeout.isFinite, range.contains(upstreamTimeout) else {
                throw ValidationError(
                    "--upstream-timeout must be a number of seconds from \(ConfigReader.plain(range.lowerBound)) to \(ConfigReader.plain(range.upperBound)), got \(ConfigReader.plain(upstreamTimeout))"
                )
            }
        }
    }

    func apply(to settings: inout ProxySettings, configFile: CassetteConfigFile, environment: String?) {
        settings.tls = tls.configuration(configFile: configFile, environment: environment)
        settings.upstreamTimeout =
            upstreamTimeout.map { Seconds(clamping: $0).duration }
            ?? configFile.upstreamTimeout ?? CassetteConfigFile.defaultUpstreamTimeout
    }
}
