import ArgumentParser

enum MissPolicyOption: String, ExpressibleByArgument, CaseIterable {
    case error, passthrough, record

    var policy: ProxySettings.MissPolicy {
        switch self {
        case .error: .error
        case .passthrough: .passthrough
        case .record: .record
        }
    }
}
