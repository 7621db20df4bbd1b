import Foundation
import WellPlateCore
import WellPlateNetworking

extension CassetteStore {
    /// Every finding of `audit` in the store's interactions (one cassette's, or all), in the
    /// order of `interactions(cassette:)`. `progress` hears of each interaction scanned, against
    /// the count taken first.
    package func audit(
        cassette: String?, with audit: SecretAudit = SecretAudit(), progress: ProgressHandler? = nil
    ) throws(CassetteStoreError) -> (findings: [AuditFinding], interactions: Int) {
        var findings: [AuditFinding] = []
        var count = 0
        let total = progress == nil ? 0 : try self.count(cassette: cassette)
        progress?(0, total)
        try forEachInteraction(cassette: cassette) { interaction in
            count += 1
            findings.append(contentsOf: audit.findings(in: interaction))
            progress?(count, total)
            return true
        }
        return (findings, count)
    }
}
