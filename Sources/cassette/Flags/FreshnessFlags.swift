import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `--max-age`, `--stale` and `--track-usage`, part of `ReplayFlags`; each falls back to the
/// configuration file's `maxAge`, `stale` and `trackUsage`.
struct FreshnessFlags: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Warn for every request answered from a recording older than this many days (default: \"maxAge\" from the configuration file; none).",
            valueName: "days"))
    var maxAge: Int?

    @Option(
        help: ArgumentHelp(
            "What --max-age does with an old recording: warn (serve it) or fail (answer like a miss, which --strict counts).", valueName: "policy"))
    var stale: StaleOption?

    @Flag(help: "Remember in the store how often each recording was replayed (for `cassette list --unused-since`); the store is written on exit.")
    var trackUsage = false

    func validate() throws {
        if let maxAge, maxAge < 0 {
            throw ValidationError("--max-age must be a number of days, 0 or more; got \(maxAge)")
        }
    }

    /// The policy the flags and the file ask for; `nil` when no maximum age is set.
    func policy(configFile: CassetteConfigFile) throws(CLIError) -> StalePolicy? {
        let days = maxAge ?? configFile.maxAgeDays
        let fails = (stale ?? configFile.stale) == .fail
        guard let days else {
            if stale != nil { throw CLIError.usage("--stale needs a maximum age: pass --max-age DAYS or set \"maxAge\" in the configuration file") }
            return nil
        }
        return StalePolicy(maxAgeDays: days, fails: fails)
    }

    func tracksUsage(configFile: CassetteConfigFile) -> Bool {
        trackUsage || configFile.trackUsage
    }
}

extension StaleOption: ExpressibleByArgument {}
