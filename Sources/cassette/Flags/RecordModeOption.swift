import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import WellPlateCore
import WellPlateNetworking

/// Record modes as the command line spells them.
enum RecordModeOption: String, ExpressibleByArgument, CaseIterable {
    case once, missing, all

    var mode: RecordMode {
        switch self {
        case .once: .once
        case .missing: .missing
        case .all: .all
        }
    }
}
