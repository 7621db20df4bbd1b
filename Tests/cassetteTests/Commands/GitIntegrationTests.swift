import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The store under git: `cassette dump` as the diff textconv and `cassette merge` as the merge
/// driver, configured exactly as the README shows, in a temporary repository with real git.
@Suite("cassette dump and merge under git", .serialized)
final class GitIntegrationTests {
    let repository: GitRepository

    init() throws {
        repository = try GitRepository()
    }

    var store: String { repository.path("cassettes.db") }

    func configure() async throws {
        try await repository.initialize()
        try "cassettes.db diff=cassette merge=cassette\n".write(toFile: repository.path(".gitattributes"), atomically: true, encoding: .utf8)
        try await repository.git("config", "diff.cassette.textconv", "cassette dump --db")
        try await repository.git("config", "merge.cassette.driver", "cassette merge %O %A %B")
        try await repository.git("add", ".gitattributes")
        try await repository.git("commit", "-q", "-m", "attributes")
    }

    func commit(_ message: String) async throws {
        try await repository.git("add", "cassettes.db")
        try await repository.git("commit", "-q", "-m", message)
    }

    /// Replaces the recordings of `target` with one answering `body`.
    func rerecord(_ target: String, body: String) async throws {
        let opened = try await CassetteStore.open(path: store, access: .readWrite)
        try await opened.delete(key: "GET \(target)", cassette: "dev")
        try await opened.record(Recordings.make(.get, target, body: Recordings.json(body)))
        try await opened.close()
    }

    // MARK: dump

    @Test func gitDiffThroughTheTextconvShowsTheFieldARerecordingChanged() async throws {
        try await configure()
        try await withSampleAPI { base in
            let url = base.appending(pathAndQuery: "/api/users/1")
            _ = try await withRecordingTransport(path: store, mode: .all) { try await $0.send(TransportRequest(method: .get, url: url)) }
            try await commit("record")
            // The API changes; recording again brings the change into the store.
            let patch = TransportRequest(method: .patch, url: url, headerFields: [.contentType: "application/json"], body: Data(#"{"name":"Ada King"}"#.utf8))
            _ = try await CurlTransport().send(patch)
            _ = try await withRecordingTransport(path: store, mode: .all) { try await $0.send(TransportRequest(method: .get, url: url)) }
        }
        let diff = try await repository.git("diff", "--", "cassettes.db")
        let changed = diff.stdout.split(separator: "\n").filter { ($0.hasPrefix("-") || $0.hasPrefix("+")) && !$0.hasPrefix("---") && !$0.hasPrefix("+++") }
        // The field, and the body's length that follows from it ("Ada King" is 4 bytes shorter).
        let lengths = changed.filter { $0.contains("Content-Length") || $0.contains("response body json") }
        #expect(changed.filter { !lengths.contains($0) } == [#"-      "name": "Ada Lovelace","#, #"+      "name": "Ada King","#], "\(diff.stdout)")
        let numbers = lengths.compactMap { line in line.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .punctuationCharacters)) }.last }
        #expect(numbers.count == 4 && numbers[0] - numbers[2] == 4 && numbers[1] - numbers[3] == 4, "\(lengths)")
        #expect(diff.stdout.contains(" request GET ") && diff.stdout.contains("/api/users/1"))
        // Without the textconv git sees only bytes.
        let raw = try await repository.git("diff", "--no-textconv", "--", "cassettes.db")
        #expect(raw.stdout.contains("Binary files"))
    }

    @Test func theDumpIsStableSortedAndPrettyPrintsJSON() async throws {
        let workspace = try CLIWorkspace()
        try await workspace.record(
            [
                Recordings.make(
                    .get, "/b", responseHeaders: [.contentType: "application/json", .date: "Sun, 15 Jun 2025 15:06:40 GMT"],
                    body: Recordings.json(#"{"z":1,"a":[true,null]}"#)),
                Recordings.make(.get, "/a", responseHeaders: [.contentType: "application/octet-stream"], body: Data([0, 1, 2, 255])),
                Recordings.make(.post, "/a", requestHeaders: [.contentType: "text/plain"], requestBody: Data("hello".utf8), responseHeaders: [:], body: Data()),
            ], cassettes: [CassetteInfo(name: "dev", upstream: "http://127.0.0.1:8081")])
        let first = try await workspace.run("dump")
        let binaryHash = try await SHA256Hex.of(Data([0, 1, 2, 255]))
        #expect(first.status == 0, "\(first)")
        #expect(
            first.stdout == """
                cassette dev
                  upstream http://127.0.0.1:8081
                  matching {"ignoredBodyFields":[],"ignoredQueryParameters":[],"includeBodyFingerprint":true,"includeHost":false}
                  3 recordings

                === dev GET /a #0
                request GET http://127.0.0.1:8081/a
                status 200
                response header Content-Type: application/octet-stream
                response body binary, 4 bytes, sha256 \(binaryHash)

                === dev GET /b #0
                request GET http://127.0.0.1:8081/b
                status 200
                response header Content-Type: application/json
                response body json, 23 bytes
                    {
                      "a": [
                        true,
                        null
                      ],
                      "z": 1
                    }

                === dev POST /a body:\(String(RequestKey(method: .post, target: "/a", headerFields: [.contentType: "text/plain"], body: Data("hello".utf8)).rawValue.split(separator: "body:").last ?? "")) #0
                request POST http://127.0.0.1:8081/a
                request header Content-Type: text/plain
                request body text, 5 bytes, no final newline
                    hello
                status 200
                response body empty


                """)
        let again = try await workspace.run("dump")
        #expect(again.stdout == first.stdout)
        let timed = try await workspace.run("dump", "--timestamps")
        #expect(timed.stdout.contains("response header Date: Sun, 15 Jun 2025 15:06:40 GMT"))
        #expect(timed.stdout.contains("recorded 2025-06-15T15:06:40.000Z in 12.0 ms"))
    }

    // MARK: merge

    @Test func branchesThatRecordedDifferentEndpointsMerge() async throws {
        try await configure()
        _ = try await fillStore(store, with: [Recordings.make(.get, "/api/users/1", body: Recordings.json(#"{"id":1}"#))])
        try await commit("base")
        try await repository.git("checkout", "-q", "-b", "feature")
        _ = try await fillStore(store, with: [Recordings.make(.get, "/api/health", body: Recordings.json(#"{"status":"ok"}"#))])
        try await commit("feature records health")
        try await repository.git("checkout", "-q", "main")
        _ = try await fillStore(store, with: [Recordings.make(.get, "/api/users/2", body: Recordings.json(#"{"id":2}"#))])
        try await commit("main records user 2")

        let merge = try await repository.git("merge", "--no-edit", "feature", allowFailure: true)
        #expect(merge.status == 0, "\(merge)")
        let merged = try await storedInteractions(store)
        #expect(merged.map(\.key) == ["GET /api/health", "GET /api/users/1", "GET /api/users/2"])
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        #expect(try await opened.integrityCheck().isEmpty)
        try await opened.close()
        let status = try await repository.git("status", "--porcelain")
        #expect(status.stdout.isEmpty, "\(status.stdout)")
    }

    @Test func theSameRecordingChangedOnBothBranchesIsAConflictThatPreferResolves() async throws {
        try await configure()
        _ = try await fillStore(store, with: [Recordings.make(.get, "/api/users/1", body: Recordings.json(#"{"name":"Ada"}"#))])
        try await commit("base")
        try await repository.git("checkout", "-q", "-b", "feature")
        try await rerecord("/api/users/1", body: #"{"name":"Ada King"}"#)
        _ = try await fillStore(store, with: [Recordings.make(.get, "/api/health", body: Recordings.json("{}"))])
        try await commit("feature")
        try await repository.git("checkout", "-q", "main")
        try await rerecord("/api/users/1", body: #"{"name":"Ada Lovelace"}"#)
        try await commit("main")
        let ours = try Data(contentsOf: URL(fileURLWithPath: store))

        let merge = try await repository.git("merge", "--no-edit", "feature", allowFailure: true)
        #expect(merge.status != 0)
        let output = merge.stdout + merge.stderr
        #expect(output.contains("conflict: dev GET /api/users/1 #0: changed differently on both sides"), "\(output)")
        #expect(output.contains("CONFLICT"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == ours)
        try await repository.git("merge", "--abort")

        try await repository.git("config", "merge.cassette.driver", "cassette merge --prefer theirs %O %A %B")
        let preferred = try await repository.git("merge", "--no-edit", "feature", allowFailure: true)
        #expect(preferred.status == 0, "\(preferred)")
        let merged = try await storedInteractions(store)
        #expect(merged.map(\.key) == ["GET /api/health", "GET /api/users/1"])
        #expect(merged.last.map { String(decoding: $0.responseBody, as: UTF8.self) } == #"{"name":"Ada King"}"#)
    }
}

enum SHA256Hex {
    static func of(_ data: Data) async throws -> String {
        // An independent implementation: the system's sha256sum, reading a file (a child's stdin
        // is /dev/null).
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("bytes")
        try data.write(to: file)
        let result = try await runToCompletion("/usr/bin/env", ["sha256sum", file.path], cwd: directory.url)
        return String(result.stdout.prefix(64))
    }
}
