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

    static var defaultCompletionKind: CompletionKind { .list(["none", "recorded", "100"]) }
}
