import Foundation
import TestSupport
import Testing
import WellPlateCore

/// Commands that fail, or find nothing to do, leave the store byte for byte as it was: they open it
/// for writing only once they know something will be written.
@Suite("failed commands leave the store alone")
final class FailedCommandTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    func recordSample() async throws {
        try await workspace.record([
            Recordings.make(.get, "/api/users?limit=10"),
            Recordings.make(.get, "/api/health"),
            Recordings.make(.post, "/api/meals", cassette: "staging", requestHeaders: [.contentType: "application/json"], requestBody: Data("{}".utf8)),
        ])
    }

    /// Runs `arguments` and checks the status and that the store's bytes did not change.
    func expectUntouched(_ arguments: [String], status: Int32, sourceLocation: SourceLocation = #_sourceLocation) async throws -> CommandResult {
        let before = try StoreFingerprint(of: workspace.storePath)
        let result = try await workspace.run(arguments: arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(try StoreFingerprint(of: workspace.storePath) == before, "\(arguments) changed the store", sourceLocation: sourceLocation)
        return result
    }

    static let failing: [[String]] = [
        ["delete", "GET /api/nothing-here"],
        ["delete", "--cassette", "prod", "--all"],
        ["delete", "GET /api/health", "--cassette", "prod"],
        ["redact", "--cassette", "prod"],
        ["prune", "--older-than", "1", "--cassette", "prod"],
    ]

    @Test(arguments: failing)
    func aFailingCommandLeavesTheStoreByteForByte(_ arguments: [String]) async throws {
        try await recordSample()
        let result = try await expectUntouched(arguments, status: 1)
        #expect(result.stderr.hasPrefix("error: "))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line: \(result.stderr)")
    }

    @Test(arguments: [["redact"], ["redact", "--cassette", "staging"], ["prune", "--older-than", "100000"]])
    func aCommandWithNothingToDoLeavesTheStoreByteForByte(_ arguments: [String]) async throws {
        try await recordSample()
        _ = try await expectUntouched(arguments, status: 0)
    }

    @Test func aDeleteThatFindsSomethingStillWrites() async throws {
        try await recordSample()
        let before = try StoreFingerprint(of: workspace.storePath)
        let result = try await workspace.run("delete", "GET /api/health")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try StoreFingerprint(of: workspace.storePath) != before)
        #expect(try await workspace.count() == 2)
    }

    // MARK: import

    static func har(_ entries: [(method: String, url: String, status: Int)]) -> String {
        let list = entries.map { entry in
            """
            {"startedDateTime": "2025-06-15T15:06:40.123Z", "time": 5,
             "request": {"method": "\(entry.method)", "url": "\(entry.url)", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                         "queryString": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": \(entry.status), "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [],
                          "headers": [{"name": "Content-Type", "value": "application/json"}],
                          "content": {"size": 11, "mimeType": "application/json", "text": "{\\"ok\\":true}"},
                          "redirectURL": "", "headersSize": -1, "bodySize": -1},
             "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}}
            """
        }
        return #"{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": ["# + list.joined(separator: ",") + "]}}"
    }

    @Test func anImportWhoseEntriesAreAllSkippedLeavesTheStoreByteForByte() async throws {
        try await recordSample()
        try workspace.write(Self.har([("GET", "http://127.0.0.1:8081/api/failed", 0), ("TRACE", "http://127.0.0.1:8081/api/users", 200)]), to: "skipped.har")
        let result = try await expectUntouched(["import", "skipped.har"], status: 1)
        #expect(result.stderr.contains("has no entry that can be imported"))
    }

    @Test func anImportOfKeysAlreadyRecordedLeavesTheStoreByteForByte() async throws {
        try await recordSample()
        try workspace.write(Self.har([("GET", "http://127.0.0.1:8081/api/health", 200)]), to: "known.har")
        let result = try await expectUntouched(["import", "known.har"], status: 0)
        #expect(result.stdout.contains("Imported 0 entries"), "\(result.stdout)")
    }

    @Test func anImportWithNothingToImportCreatesNoStore() async throws {
        try workspace.write(Self.har([("GET", "http://127.0.0.1:8081/api/failed", 0)]), to: "skipped.har")
        let result = try await workspace.run("import", "skipped.har")
        #expect(result.status == 1)
        #expect(!workspace.fileExists("cassettes.db"))
    }

    @Test func anImportWithNewEntriesStillWrites() async throws {
        try await recordSample()
        try workspace.write(Self.har([("GET", "http://127.0.0.1:8081/api/health", 200), ("GET", "http://127.0.0.1:8081/api/new", 200)]), to: "mixed.har")
        let result = try await workspace.run("import", "mixed.har")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await workspace.count(cassette: "dev") == 3)
    }

    // MARK: a directory as the store

    @Test(arguments: [["list"], ["delete", "GET /api/a"], ["redact"], ["import", "x.har"]])
    func aDirectoryGivenAsTheStoreSaysItIsADirectory(_ arguments: [String]) async throws {
        try FileManager.default.createDirectory(atPath: workspace.path("somedir"), withIntermediateDirectories: true)
        try workspace.write(Self.har([("GET", "http://127.0.0.1:8081/api/x", 200)]), to: "x.har")
        let result = try await workspace.run(arguments: arguments + ["--db", "somedir"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("somedir is a directory, not a cassette store"), "\(arguments): \(result.stderr)")
        #expect(!result.stderr.contains("disk I/O error"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.path("somedir")).isEmpty)
    }
}
