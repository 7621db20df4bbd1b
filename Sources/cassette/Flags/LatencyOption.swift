import ArgumentParser

/// `none`, `recorded`, or a number of milliseconds.
struct LatencyOption: ExpressibleByArgument {
    let latency: ProxySettings.Latency

    init?(argument: String) {
        switch argument.lowercased() {
        case "none", "0": latency = .none
        case "recorded": latency = .recorded
        default:
            guard let milliseconds = Int(argument), milliseconds > 0 else { return nil }
            latency = .fixed(.milliseconds(milliseconds))
        }
    }

    /// The value as it is typed: `--help` prints the default this way.
    var defaultValueDescription: String {
        switch latency {
        case .none: "none"
        case .recorded: "recorded"
        case .fixed(let delay): String(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
        }
    }

    static var defaultCompletionKind: CompletionKind { .list(["none", "recorded", "100"]) }
}
