import WellPlateCore

/// `--durability` and cassette.json's `"durability"`, as the command line spells them.
package enum DurabilityOption: String, CaseIterable, Sendable {
    case normal, full

    package var durability: CassetteStore.Durability {
        switch self {
        case .normal: .normal
        case .full: .full
        }
    }
}
