import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

@Suite("cassette redact")
final class RedactCommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let credential = "upstream-cred-7f3e9a"
    static let ssn = "078-05-1120"
    static let bearer = "bearer-token-51c0d2e8"

    /// Recordings made without redaction (an old store, or rules that did not exist yet): many,
    /// so that rewriting them leaves free pages behind.
    func recordUnredacted() async throws -> [Interaction] {
        var interactions: [Interaction] = []
        let padding = String(repeating: "nutrition facts ", count: 120)
        for index in 0..<150 {
            interactions.append(
                Recordings.make(
                    .get, "/api/people/\(index)?session=\(Self.credential)",
                    requestHeaders: [HTTPField.Name("X-Upstream-Credential")!: Self.credential, .authorization: "Bearer \(Self.bearer)"],
                    body: Data(#"{"id": \#(index), "ssn": "\#(Self.ssn)", "note": "\#(padding)", "echo": "\#(Self.credential)"}"#.utf8)
                ))
        }
        interactions.append(Recordings.make(.get, "/api/files/\(Self.credential)", requestHeaders: [HTTPField.Name("X-Upstream-Credential")!: Self.credential]))
        return try await workspace.record(interactions)
    }

    func storeBytesContain(_ needle: String) throws -> [String] {
        try StoreFiles.files(at: workspace.storePath, containing: needle)
    }

    @Test func rewritesStoredInteractionsAndLeavesNoTraceInTheFile() async throws {
        _ = try await recordUnredacted()
        for secret in [Self.credential, Self.ssn, Self.bearer] {
            #expect(try !storeBytesContain(secret).isEmpty, "the search must find \(secret) before, or it proves nothing")
        }
        try workspace.write(#"{"redact": {"headers": ["X-Upstream-Credential"], "jsonFields": ["ssn"], "queryParameters": ["session"]}}"#, to: "cassette.json")

        let before = try Data(contentsOf: URL(fileURLWithPath: workspace.storePath))
        let dryRun = try await workspace.run("redact", "--dry-run")
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("dev GET /api/people/0?session=REDACTED #0: request URL, request headers, response body; key changed"))
        #expect(dryRun.stdout.contains("dev GET /api/files/REDACTED #0: request URL, request headers; key changed"))
        for secret in [Self.credential, Self.ssn, Self.bearer] {
            #expect(!dryRun.stdout.contains(secret) && !dryRun.stderr.contains(secret), "the dry run prints \(secret)")
        }
        #expect(dryRun.stdout.contains("Would redact 151 of 151 interactions"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: workspace.storePath)) == before, "a dry run writes nothing")

        let redact = try await workspace.run("redact")
        #expect(redact.status == 0, "\(redact.stderr)")
        #expect(redact.stdout.contains("Redacted 151 of 151 interactions"))
        for secret in [Self.credential, Self.ssn, Self.bearer] {
            #expect(try storeBytesContain(secret) == [], "\(secret) is still in the file's bytes")
        }
        let stored = try await StoreFiles.interactions(at: workspace.storePath)
        #expect(stored.count == 151)
        let file = try #require(stored.first { $0.url.contains("/api/files/") })
        #expect(file.key == "GET /api/files/REDACTED")
        let person = try #require(stored.first { $0.url.contains("/api/people/3?") })
        #expect(String(decoding: person.responseBody, as: UTF8.self).hasPrefix(#"{"id": 3, "ssn": "REDACTED", "note": "#))
        #expect(person.requestHeaders[.authorization] == "REDACTED")

        // Nothing left to do: a second run changes nothing, and the audit is clean.
        let again = try await workspace.run("redact")
        #expect(again.stdout.contains("Redacted 0 of 151 interactions"))
        #expect(try await workspace.run("audit").status == 0)
    }

    /// `--redact-all-cookies` means what `"redact": {"cookies": "all"}` means: a store recorded
    /// with the default keeps `theme=dark`, and the flag redacts it (and the session cookie too).
    @Test func redactAllCookiesRedactsTheCookiesTheDefaultKeeps() async throws {
        _ = try await workspace.record([
            Recordings.make(
                .get, "/api/prefs", requestHeaders: [.cookie: "theme=dark; sid=REDACTED"],
                responseHeaders: [.contentType: "application/json", .setCookie: "theme=dark; Path=/"])
        ])
        let kept = try await workspace.run("redact")
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stdout.contains("Redacted 0 of 1 interaction"), "\(kept.stdout)")

        let all = try await workspace.run("redact", "--redact-all-cookies")
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout.contains("dev GET /api/prefs #0: request headers, response headers"), "\(all.stdout)")
        let stored = try #require(try await StoreFiles.interactions(at: workspace.storePath).first)
        #expect(stored.requestHeaders[.cookie] == "theme=REDACTED; sid=REDACTED")
        #expect(stored.responseHeaders[.setCookie] == "theme=REDACTED; Path=/")
        #expect(try storeBytesContain("theme=dark") == [])
    }

    @Test func anUnknownCassetteIsAnError() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users")])
        let result = try await workspace.run("redact", "--cassette", "staging")
        #expect(result.status == 1)
        #expect(result.stderr.contains("no cassette named 'staging'"))
    }
}
