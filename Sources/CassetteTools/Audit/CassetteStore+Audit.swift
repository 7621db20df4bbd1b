import Foundation
import WellPlateCore
import WellPlateNetworking

extension CassetteStore {
    /// Reads the interactions of one cassette (or all) row by row, without holding them all:
    /// `body` sees each one and the reading stops when it returns `false`.
    public func forEachInteraction(cassette: String?, _ body: (Interaction) throws -> Bool) throws(CassetteStoreError) {
        try reading { connection in
            let statement = try Self.interactionsStatement(connection, cassette: cassette)
            var reader = InteractionRowReader()
            while try statement.step() {
                guard try body(reader.read(statement)) else { return }
            }
        }
    }

    /// Every finding of `audit` in the store's interactions (one cassette's, or all), in the
    /// order of `interactions(cassette:)`.
    public func audit(cassette: String?, with audit: SecretAudit = SecretAudit()) throws(CassetteStoreError) -> (findings: [AuditFinding], interactions: Int) {
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
