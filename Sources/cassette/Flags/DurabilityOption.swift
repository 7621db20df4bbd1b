import ArgumentParser
import CassetteProxy
import CassetteTools
import WellPlateCore
import WellPlateNetworking

/// `--durability` and cassette.json's `"durability"`, as the command line spells them.
enum DurabilityOption: String, ExpressibleByArgument, CaseIterable {
    case normal, full

    var durability: CassetteStore.Durability {
        switch self {
        case .normal: .normal
        case .full: .full
        }
    }
}
