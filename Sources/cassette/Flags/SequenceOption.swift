import ArgumentParser
import WellPlateNetworking

enum SequenceOption: String, ExpressibleByArgument, CaseIterable {
    case repeatLast = "repeat-last", cycle, fail

    var policy: SequencePolicy {
        switch self {
        case .repeatLast: .repeatLast
        case .cycle: .cycle
        case .fail: .fail
        }
    }
}
