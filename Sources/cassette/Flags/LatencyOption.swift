import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import WellPlateCore
import WellPlateNetworking

/// `none`, `recorded`, or a number of milliseconds.
struct LatencyOption: ExpressibleByArgument {
    /// `nil` for a number out of range, which `ReplayFlags.validate()` reports with the accepted
    /// range (a failing `init?(argument:)` could only say "invalid").
    let latency: ProxySettings.Latency?
    let argument: String

    static let accepted = "a whole number of milliseconds from 0 to 86400000 (one day), none or recorded"

    init?(argument: String) {
        self.argument = argument
        switch argument.lowercased() {
        case "none": latency = ProxySettings.Latency.none
        case "recorded": latency = .recorded
        default:
            guard let milliseconds = Double(argument) else { return nil }
            guard milliseconds == milliseconds.rounded(), let fixed = Seconds(milliseconds: milliseconds, allowsZero: true) else {
                latency = nil
                return
            }
            latency = fixed.value == 0 ? ProxySettings.Latency.none : .fixed(fixed.duration)
        }
    }

    /// The value as it is typed: `--help` prints the default this way.
    var defaultValueDescription: String { argument }

    static var defaultCompletionKind: CompletionKind { .list(["none", "recorded", "100"]) }
}
