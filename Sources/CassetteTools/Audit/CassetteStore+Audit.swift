import Foundation
import WellPlateCore
import WellPlateNetworking

extension CassetteStore {
    /// What `audit` found in a store: findings in the order of `interactions(cassette:)`, then
    /// those of the WebSocket conversations, and how many of each were scanned.
    package struct AuditResult: Sendable {
        package var findings: [AuditFinding]
        package var interactions: Int
        package var conversations: Int

        package init(findings: [AuditFinding], interactions: Int, conversations: Int) {
            self.findings = findings
            self.interactions = interactions
            self.conversations = conversations
        }
    }

    /// Every finding of `audit` in the store's interactions and conversations (one cassette's,
    /// or all). `progress` hears of each interaction scanned, against the count taken first.
    package func audit(
        cassette: String?, with audit: SecretAudit = SecretAudit(), progress: ProgressHandler? = nil
    ) throws(CassetteStoreError) -> AuditResult {
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
        let conversations = try conversations(cassette: cassette)
        for conversation in conversations {
            findings.append(contentsOf: audit.findings(in: conversation))
        }
        return AuditResult(findings: findings, interactions: count, conversations: conversations.count)
    }
}
