import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import WellPlateCore
import WellPlateNetworking

/// How recordings are answered, and how old they may be: the flags `replay` and `run` take on top
/// of `ServingOptions`. `record` does not: what it does not find it records.
struct ReplayFlags: ParsableArguments {
    @Flag(help: "Exit with status 1 when any request found no recording.")
    var strict = false

    @Option(
        help: ArgumentHelp(
            "What a request without a recording gets: error (a \(404) explaining the nearest recordings), passthrough (forwarded, not recorded) or record (forwarded and recorded).",
            valueName: "policy"))
    var onMiss: MissPolicyOption = .error

    @Option(
        help: ArgumentHelp(
            "Delay before replayed responses: none, recorded (each interaction's recorded duration; a streamed recording's chunks each at its recorded time) or a number of milliseconds up to 86400000 (one day).",
            valueName: "latency"))
    var latency: LatencyOption = LatencyOption(argument: "none")!

    @Option(help: ArgumentHelp("The status of a miss response.", valueName: "code"))
    var missStatus: Int = 404

    @Option(help: ArgumentHelp("After every recording of a request was replayed: repeat-last, cycle or fail.", valueName: "policy"))
    var sequence: SequenceOption = .repeatLast

    @OptionGroup var freshness: FreshnessFlags

    func validate() throws {
        guard latency.latency != nil else {
            throw ValidationError.outOfRange("--latency", latency.argument, LatencyOption.accepted)
        }
        guard (400...599).contains(missStatus) else {
            throw ValidationError("--miss-status must be a 4xx or 5xx status, got \(missStatus)")
        }
    }

    /// Serving `mode` (`none` for `replay`) with this `--on-miss`.
    func policy(mode: RecordMode) -> ServingPolicy {
        ServingPolicy(mode: mode, onMiss: onMiss.policy)
    }

    /// The latency, the miss status and the policy for old recordings, on top of `configFile`'s.
    func apply(to settings: inout ProxySettings, configFile: CassetteConfigFile) throws(CLIError) {
        settings.latency = latency.latency ?? ProxySettings.Latency.none
        settings.missStatus = missStatus
        settings.stalePolicy = try freshness.policy(configFile: configFile)
    }
}
