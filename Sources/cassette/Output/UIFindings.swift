import CassetteTools
import Foundation
import WellPlateCore

/// The web UI's Drift view, for `cassette ui`, `report --html` and `run --report`: the store's
/// `audit` findings (values masked, as `cassette audit --format json` prints them) and, given a
/// fixtures folder, `cassette diff --fixtures DIR`'s comparison per endpoint. Made here because
/// both are tool code, which the UI's target and the proxy do not link.
struct UIFindings: Sendable {
    /// `--fixtures DIR`; without it the view shows the audit alone.
    var fixtures: String?
    /// The cassette the drift reads (nil: the store's only one, else dev), as `diff --cassette`.
    var cassette: String?

    /// Fails early, with the message `cassette diff` would give, when the fixtures cannot be
    /// read, so a bad `--fixtures` never costs a half-written report or a UI that errs later.
    func check(storePath: String) async throws(CLIError) {
        guard let fixtures else { return }
        _ = try await DiffCommand.compareFixtures(in: fixtures, storePath: storePath, cassette: cassette, ignores: [])
    }

    /// `{"audit": {...}, "drift": {"fixtures": DIR, "endpoints": [...], "summary": {...}} | null}`.
    func json(store: CassetteStore) async throws -> JSONValue {
        let audit = try await store.audit(cassette: nil)
        let report = AuditReport(
            path: store.path, interactions: audit.interactions, conversations: audit.conversations, findings: audit.findings, failOn: .high)
        var drift: JSONValue = .null
        if let fixtures {
            let (comparison, _) = try await DiffCommand.compareFixtures(in: fixtures, storePath: store.path, cassette: cassette, ignores: [])
            var object = try JSONValue(parsing: JSONEncoder().encode(comparison)).objectValue ?? [:]
            object["fixtures"] = .string(fixtures)
            drift = .object(object)
        }
        return ["audit": report.jsonValue, "drift": drift]
    }

    /// `json(store:)` as `UICatalog.findings` takes it.
    func provider(store: CassetteStore) -> @Sendable () async throws -> JSONValue {
        { try await json(store: store) }
    }
}
