import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import WellPlateCore
import WellPlateNetworking

/// `--on-miss`: what a replay does with a request it has no recording for.
enum MissPolicyOption: String, ExpressibleByArgument, CaseIterable {
    case error, passthrough, record

    var policy: ServingPolicy.OnMiss {
        switch self {
        case .error: .error
        case .passthrough: .passthrough
        case .record: .record
        }
    }
}
