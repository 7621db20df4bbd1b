import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import WellPlateCore
import WellPlateNetworking

/// `--sequence`: what a replay serves once every recording of a request was served.
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
