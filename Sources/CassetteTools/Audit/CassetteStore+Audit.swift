import Foundation
import WellPlateCore
import WellPlateNetworking

extension CassetteStore {
    /// Every finding of `audit` in the store's interactions (one cassette's, or all), in the
    /// order of `interactions(cassette:)`.
    package func audit(cassette: String?, with audit: SecretAudit = SecretAudit()) throws(CassetteStoreError) -> (findings: [AuditFinding], interactions: Int) {
        var findings: [AuditFinding] = []
        var count = 0
        try forEachInteraction(cassette: cassette) { interaction in
            count += 1
            findings.append(contentsOf: audit.findings(in: interaction))
            return true
        }
        return (findings, count)
    }
}
