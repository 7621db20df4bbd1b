import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette audit`: scans the store for secrets that redaction missed, before it is committed.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Scan the recorded interactions for secrets and personal data that redaction missed.",
        discussion: """
            Reads every stored interaction (of --cassette, or of all cassettes): the request URL, \
            query, headers, cookies and body, and the response headers, cookies and body. Reports \
            JWTs, PEM private keys, well-known token formats by their documented prefixes (AWS \
            AKIA/ASIA keys, GitHub ghp_/gho_/ghs_/github_pat_, GitLab glpat-, Slack xox*-, Stripe \
            sk_live_/rk_live_, Google AIza, npm, OpenAI, SendGrid, ...), passwords in URLs \
            (user:pass@), Authorization values, values of secret-looking names (password, secret, \
            api key; tokens, sessions and keys when the value looks machine-made) as high severity; \
            high-entropy base64 strings and test keys as medium; e-mail addresses, phone numbers \
            and public IP addresses as low. Each finding names the interaction (cassette, key, \
            position), the place (response body $.data.refresh_token, request header \
            X-Upstream-Credential), the value masked, and the cassette.json entry that would have \
            redacted it. The remedy: add the entry, run `cassette redact`, audit again.

            WebSocket conversations are scanned the same way: the handshake's URL and headers, and \
            every text or binary message (place `WebSocket message 3 (client text) $.token`).

            Exit status: 0 when nothing at or above --fail-on was found, 1 when something was, \
            2 for input errors (no store, no such cassette). --format json prints one object with \
            every finding, for CI annotations.

            Examples:
              cassette audit
              cassette audit --cassette staging --fail-on medium
              cassette audit --format json > audit.json
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @OptionGroup var store: StoreOptions

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Option(help: "Exit with status 1 for findings of this severity or worse: high, medium or low.")
    var failOn: AuditSeverity = .high

    @OptionGroup var progressFlags: ProgressFlags

    func run() async throws {
        let settings = try await Self.input { try store.loadConfig() }
        let path = settings.databasePath
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIError.usage("\(path) does not exist; record a session first (`cassette record`) or pass --db with the right path")
        }
        let opened = try await Self.input { try await store.openStore(settings, access: .readOnly) }
        let filter = store.cassette
        let progress = progressFlags.line()
        defer { progress.finish() }
        let scanned = progress.step("auditing", unit: "interactions")
        let result = try await Self.input {
            try await opened.use { store throws(CassetteStoreError) -> (audit: CassetteStore.AuditResult, known: [String]?) in
                if let filter {
                    let known = try store.cassettes().map(\.name)
                    guard known.contains(filter) else { return (CassetteStore.AuditResult(findings: [], interactions: 0, conversations: 0), known) }
                }
                return (try store.audit(cassette: filter, progress: scanned), nil)
            }
        }
        progress.finish()
        if let known = result.known {
            throw CLIError.usage(
                "\(path) has no cassette named '\(filter ?? "")' (\(known.isEmpty ? "it has none" : "cassettes: " + known.joined(separator: ", "))); pass an existing --cassette"
            )
        }
        let report = AuditReport(
            path: path, interactions: result.audit.interactions, conversations: result.audit.conversations, findings: result.audit.findings,
            failOn: failOn)
        switch format {
        case .text: Terminal.printLine(report.text)
        case .json: Terminal.printLine(try report.json())
        }
        if report.fails { throw ExitCode(1) }
    }

    /// Input problems (configuration, store) exit with status 2, as the help says.
    private static func input<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CLIError {
            throw CLIError.usage(error.message)
        }
    }
}

extension AuditSeverity: ExpressibleByArgument {}
