import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette list`, `show`, `delete` and `prune`, run as the real binary against stores filled
/// through the library. Each test instance has its own working directory.
@Suite("cassette store management commands")
final class CLIManageTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Three recordings in two cassettes: a JSON GET, a repeated GET (sequence 0 and 1) and a POST.
    @discardableResult
    func recordSample() async throws -> [Interaction] {
        try await workspace.record(
            [
                Recordings.make(.get, "/api/users?limit=10", body: Recordings.json(#"{"users":[{"id":1,"name":"Ada"}],"total":1}"#)),
                Recordings.make(.get, "/api/health", body: Recordings.json(#"{"status":"ok"}"#)),
                Recordings.make(.get, "/api/health", body: Recordings.json(#"{"status":"degraded"}"#)),
                Recordings.make(
                    .post, "/api/meals", cassette: "staging", status: 201,
                    requestHeaders: [.contentType: "application/json"], requestBody: Recordings.json(#"{"food":"apple","grams":150}"#),
                    body: Data(repeating: UInt8(ascii: "x"), count: 2048)
                ),
            ], cassettes: [CassetteInfo(name: "staging", upstream: "https://staging-api.example.com")])
    }

    static func jsonArray(_ text: String) throws -> [[String: Any]] {
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(value as? [[String: Any]])
    }

    // MARK: list

    @Test func listPrintsOneRowPerRecordingWithHumanSizesAndUTCTimes() async throws {
        try await recordSample()
        let result = try await workspace.run("list")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        let lines = result.stdoutLines
        let header = try #require(lines.first)
        #expect(
            header.split(separator: " ", omittingEmptySubsequences: true) == [
                "ID", "CASSETTE", "METHOD", "KEY", "SEQ", "STATUS", "SIZE", "RECORDED", "AT", "AGE",
            ])
        let health = lines.filter { $0.contains("GET /api/health") }
        #expect(health.count == 2)
        #expect(health.allSatisfy { $0.contains("2025-06-15T15:06:40Z") && $0.contains(" 200 ") })
        let meal = try #require(lines.first { $0.contains("POST /api/meals") })
        #expect(meal.contains("staging"))
        #expect(meal.contains("2.0 KiB"))
        #expect(meal.contains(" 201 "))
        // Columns line up: every row puts STATUS where the header does.
        let statusColumn = try #require(header.range(of: "STATUS")).upperBound.utf16Offset(in: header)
        for row in lines.dropFirst().prefix(4) {
            let end = row.index(row.startIndex, offsetBy: statusColumn)
            #expect(row[..<end].hasSuffix("200") || row[..<end].hasSuffix("201"), "\(row)")
        }
    }

    @Test func listAddsTheSequenceColumnOnlyWhenAKeyWasRecordedTwice() async throws {
        try await workspace.record([Recordings.make(.get, "/api/a"), Recordings.make(.get, "/api/b")])
        let result = try await workspace.run("list")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.first?.contains("SEQ") == false)
    }

    @Test func listEndsWithASummaryLinePerCassette() async throws {
        try await recordSample()
        let result = try await workspace.run("list")
        #expect(result.stdout.contains("dev: 3 recordings, 79 B of response bodies"), "\(result)")
        #expect(result.stdout.contains("staging: 1 recording, 2.0 KiB of response bodies, recorded from https://staging-api.example.com"))
    }

    @Test func listNeverCutsKeysWhenStdoutIsNotATerminal() async throws {
        let longPath = "/api/" + String(repeating: "very-long-segment/", count: 8) + "end?filter=" + String(repeating: "z", count: 60)
        try await workspace.record([Recordings.make(.get, longPath)])
        let result = try await workspace.run("list", environment: ["COLUMNS": "40"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("GET \(longPath)"))
        #expect(!result.stdout.contains("…"))
    }

    @Test func listCutsOnlyTheKeyColumnToFitATerminal() async throws {
        let longPath = "/api/" + String(repeating: "very-long-segment/", count: 8) + "end"
        try await workspace.record([Recordings.make(.get, longPath), Recordings.make(.get, "/api/a")])
        let result = try await runCassetteOnTerminal(["list"], cwd: workspace.directory, columns: 100, environment: ["NO_COLOR": "1"])
        #expect(result.status == 0, "\(result.stdout)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let table = lines.prefix { !$0.isEmpty }
        #expect(table.count == 3)
        #expect(table.allSatisfy { $0.count <= 100 }, "\(table)")
        let long = try #require(table.first { $0.contains("/api/very-long-segment/") })
        #expect(long.count == 100)
        #expect(long.contains("…  "))
        #expect(long.hasSuffix("2025-06-15T15:06:40Z  \(Int(Date().timeIntervalSince(Recordings.recordedAt) / 86_400))d"))
        #expect(table.contains { $0.contains("GET /api/a ") })
    }

    @Test func listPaintsTheHeaderOnlyOnAColourTerminal() async throws {
        try await workspace.record([Recordings.make(.get, "/api/a")])
        let colour = try await runCassetteOnTerminal(["list"], cwd: workspace.directory, columns: 120, environment: ["TERM": "xterm", "NO_COLOR": ""])
        #expect(colour.stdout.hasPrefix("\u{1B}[1mID"))
        let plain = try await runCassetteOnTerminal(["list"], cwd: workspace.directory, columns: 120, environment: ["TERM": "xterm", "NO_COLOR": "1"])
        #expect(plain.stdout.hasPrefix("ID"))
        #expect(!plain.stdout.contains("\u{1B}"))
    }

    @Test func listFiltersByCassette() async throws {
        try await recordSample()
        let result = try await workspace.run("list", "--cassette", "staging")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("POST /api/meals"))
        #expect(!result.stdout.contains("/api/health"))
    }

    @Test func listNamesTheKnownCassettesWhenTheFilterMatchesNone() async throws {
        try await recordSample()
        let result = try await workspace.run("list", "--cassette", "stagign")
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: cassettes.db has no cassette named 'stagign' (cassettes: dev, staging); check the --cassette name\n")
    }

    @Test func listJSONIsAStableSortedArray() async throws {
        let stored = try await recordSample()
        let first = try await workspace.run("list", "--json")
        let second = try await workspace.run("list", "--json")
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout == second.stdout)
        let objects = try Self.jsonArray(first.stdout)
        #expect(objects.count == 4)
        #expect(
            objects.allSatisfy {
                Set($0.keys) == [
                    "ageDays", "cassette", "method", "key", "lastReplayedAt", "replayCount", "sequence", "status", "size", "recordedAt", "durationMs", "id",
                ]
            })
        #expect(objects.map { $0["key"] as? String } == ["GET /api/health", "GET /api/health", "GET /api/users?limit=10", stored[3].key])
        #expect(objects.map { $0["sequence"] as? Int } == [0, 1, 0, 0])
        let meal = objects[3]
        #expect(meal["cassette"] as? String == "staging")
        #expect(meal["method"] as? String == "POST")
        #expect(meal["status"] as? Int == 201)
        #expect(meal["size"] as? Int == 2048)
        #expect(meal["recordedAt"] as? String == "2025-06-15T15:06:40Z")
        #expect(meal["durationMs"] as? Double == 12)
        #expect(meal["id"] as? Int == Int(stored[3].id ?? -1))
        // Keys are written sorted, so the text itself is stable for diffs.
        let firstObject = try #require(first.stdout.range(of: "}")).lowerBound
        let keyOrder = first.stdout[..<firstObject].split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("\"") else { return nil }
            return String(trimmed.dropFirst().prefix { $0 != "\"" })
        }
        #expect(
            keyOrder == [
                "ageDays", "cassette", "durationMs", "id", "key", "lastReplayedAt", "method", "recordedAt", "replayCount", "sequence", "size", "status",
            ])
    }

    @Test func listCassettesSummarizesEachCassette() async throws {
        try await recordSample()
        let table = try await workspace.run("list", "--cassettes")
        #expect(table.status == 0, "\(table)")
        let lines = table.stdoutLines
        #expect(lines.count == 3)
        #expect(lines[1].split(separator: " ", omittingEmptySubsequences: true) == ["dev", "-", "3", "79", "B", "2025-06-15T15:06:40Z"])
        #expect(
            lines[2].split(separator: " ", omittingEmptySubsequences: true) == [
                "staging", "https://staging-api.example.com", "1", "2.0", "KiB", "2025-06-15T15:06:40Z",
            ])
        let json = try Self.jsonArray(try await workspace.run("list", "--cassettes", "--json").stdout)
        #expect(json.map { $0["name"] as? String } == ["dev", "staging"])
        #expect(json[0]["upstream"] is NSNull)
        #expect(json[1]["upstream"] as? String == "https://staging-api.example.com")
        #expect(json.map { $0["count"] as? Int } == [3, 1])
        #expect(json.map { $0["size"] as? Int } == [79, 2048])
    }

    @Test func listOnAnEmptyStoreSaysSoInOneLine() async throws {
        try await workspace.record([])
        let result = try await workspace.run("list")
        #expect(result.status == 0)
        #expect(result.stdout == "cassettes.db has no recordings yet.\n")
        let json = try await workspace.run("list", "--json")
        #expect(json.stdout == "[]\n")
    }

    @Test func listWithoutAStoreExplainsWhatToDo() async throws {
        let result = try await workspace.run("list", "--db", "missing.db")
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: missing.db does not exist; record a session first (`cassette record`) or pass --db with the right path\n")
    }

    @Test func listRejectsUnknownFlagsAsUsageErrors() async throws {
        let result = try await workspace.run("list", "--colour")
        #expect(result.status == 2)
        #expect(result.stderr.contains("Unknown option '--colour'"))
        #expect(result.stderr.contains("Usage: cassette list"))
    }

    @Test func listRefusesAFileThatIsNotAStore() async throws {
        try workspace.write("not a database, just text that is long enough to have a header", to: "notes.db")
        let result = try await workspace.run("list", "--db", "notes.db")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: notes.db is not a cassette store"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}

// MARK: show

extension CLIManageTests {
    @Test func showPrintsTheWholeInteractionWithPrettyJSONBodies() async throws {
        let stored = try await recordSample()
        let result = try await workspace.run("show", "--db", "cassettes.db", "POST /api/meals \(stored[3].key.split(separator: " ")[2])")
        #expect(result.status == 0, "\(result)")
        let expected = """
            POST http://127.0.0.1:8081/api/meals
              id:           4
              cassette:     staging
              key:          \(stored[3].key)
              sequence:     0 (1 recorded for this key)
              recorded at:  2025-06-15T15:06:40Z
              duration:     12.0 ms

            Request headers:
              Content-Type: application/json
            Request body (JSON, 28 B):
            {
              "food": "apple",
              "grams": 150
            }

            Status: 201
            Response headers:
              Content-Type: application/json
            Response body (text, 2.0 KiB):
            \(String(repeating: "x", count: 2048))

            """
        #expect(result.stdout == expected)
    }

    @Test func showPrintsEverySequencePositionOfAKey() async throws {
        try await recordSample()
        let result = try await workspace.run("show", "GET /api/health")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.components(separatedBy: "GET http://127.0.0.1:8081/api/health\n").count == 3)
        #expect(result.stdout.contains("  sequence:     0 (2 recorded for this key)"))
        #expect(result.stdout.contains("  sequence:     1 (2 recorded for this key)"))
        let ok = try #require(result.stdout.range(of: #""status": "ok""#))
        let degraded = try #require(result.stdout.range(of: #""status": "degraded""#))
        #expect(ok.lowerBound < degraded.lowerBound)
    }

    @Test func showNormalizesAHandTypedKeyGivenAsSeparateWords() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users?limit=10&offset=20")])
        let result = try await workspace.run("show", "get", "/api/users?offset=20&limit=10")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("  key:          GET /api/users?limit=10&offset=20\n"))
    }

    @Test func showListsTheNearestStoredKeysWhenNothingMatches() async throws {
        try await workspace.record((1...7).map { Recordings.make(.get, "/api/users/\($0)") } + [Recordings.make(.get, "/api/meals")])
        let result = try await workspace.run("show", "GET /api/users/9")
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        let message = result.stderr
        #expect(
            message.hasPrefix(
                "error: no recording of \"GET /api/users/9\" in cassettes.db; nearest stored keys: \"GET /api/users/1\" (path /api/users/9 vs /api/users/1); "))
        #expect(message.components(separatedBy: "\"GET /api/").count - 1 == 1 + 5)
        #expect(!message.contains("/api/meals"))
        #expect(message.split(separator: "\n").count == 1)
    }

    @Test func showRejectsTextThatIsNotAKey() async throws {
        try await recordSample()
        let result = try await workspace.run("show", "/api/health")
        #expect(result.status == 2)
        #expect(result.stderr.contains("invalid request key \"/api/health\""))
        #expect(result.stderr.contains("stored keys containing it: \"GET /api/health\""))
    }

    @Test func showDumpsBinaryBodiesAsHex() async throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: UInt8(0), count: 92))
        try await workspace.record([Recordings.make(.get, "/logo.png", responseHeaders: [.contentType: "image/png"], body: png)])
        let result = try await workspace.run("show", "GET /logo.png")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.contains(
                """
                Response body (binary, 100 B):
                00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 00 00 00 00 00  |.PNG............|
                00000010  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|
                00000020  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|
                00000030  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|
                … 36 more bytes

                """))
    }

    @Test func showFindsARecordingByID() async throws {
        let stored = try await recordSample()
        let id = try #require(stored[2].id)
        let byOption = try await workspace.run("show", "--id", String(id))
        let byHash = try await workspace.run("show", "#\(id)")
        #expect(byOption.status == 0, "\(byOption)")
        #expect(byOption.stdout == byHash.stdout)
        #expect(byOption.stdout.contains("degraded"))
        #expect(!byOption.stdout.contains("\"ok\""))
        let missing = try await workspace.run("show", "--id", "999")
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: no recording has id 999 in cassettes.db; the ID column of `cassette list` shows the ids\n")
    }

    @Test func showJSONCarriesHeadersAndTaggedBodies() async throws {
        try await recordSample()
        let result = try await workspace.run("show", "--json", "GET /api/users?limit=10")
        #expect(result.status == 0, "\(result)")
        let objects = try Self.jsonArray(result.stdout)
        let object = try #require(objects.first)
        #expect(objects.count == 1)
        #expect(
            Set(object.keys) == [
                "id", "cassette", "method", "url", "key", "sequence", "recordedAt", "durationMs", "requestHeaders",
                "requestBody", "status", "responseHeaders", "responseBody", "contentEncoding",
            ])
        #expect(object["requestBody"] is NSNull)
        let headers = try #require(object["responseHeaders"] as? [[String: String]])
        #expect(headers.contains(["name": "Content-Type", "value": "application/json"]))
        let body = try #require(object["responseBody"] as? [String: Any])
        let users = try #require((body["json"] as? [String: Any])?["users"] as? [[String: Any]])
        #expect(users.first?["name"] as? String == "Ada")
    }

    @Test func showNeedsAKeyOrAnID() async throws {
        let neither = try await workspace.run("show")
        #expect(neither.status == 2)
        #expect(neither.stderr.contains("name the recording to show"))
        let both = try await workspace.run("show", "GET /a", "--id", "3")
        #expect(both.status == 2)
        #expect(both.stderr.contains("either a KEY or --id"))
        let badHash = try await workspace.run("show", "#abc")
        #expect(badHash.status == 2)
        #expect(badHash.stderr.contains("'#abc' is not a row id"))
    }
}

// MARK: delete

extension CLIManageTests {
    @Test func deleteRemovesEveryRecordingOfAKeyAndSaysHowMany() async throws {
        try await recordSample()
        let result = try await workspace.run("delete", "GET /api/health")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Deleted 2 recordings of GET /api/health from cassettes.db.\n")
        #expect(try await workspace.count() == 2)
        let listing = try await workspace.run("list")
        #expect(!listing.stdout.contains("/api/health"))
    }

    @Test func deleteWithACassetteLeavesOtherCassettesAlone() async throws {
        try await workspace.record([Recordings.make(.get, "/api/a", cassette: "dev"), Recordings.make(.get, "/api/a", cassette: "staging")])
        let result = try await workspace.run("delete", "get", "/api/a", "--cassette", "staging")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Deleted 1 recording of GET /api/a from cassette staging in cassettes.db.\n")
        #expect(try await workspace.count(cassette: "dev") == 1)
        #expect(try await workspace.count(cassette: "staging") == 0)
    }

    @Test func deleteAllRequiresACassetteSoATypoCannotEmptyTheStore() async throws {
        try await recordSample()
        let result = try await workspace.run("delete", "--all")
        #expect(result.status == 2)
        #expect(result.stderr.contains("--all deletes a whole cassette and needs --cassette NAME"))
        #expect(try await workspace.count() == 4)
    }

    @Test func deleteAllRemovesOneWholeCassette() async throws {
        try await recordSample()
        let result = try await workspace.run("delete", "--cassette", "dev", "--all")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Deleted cassette dev (3 recordings) from cassettes.db.\n")
        #expect(try await workspace.count(cassette: "dev") == 0)
        #expect(try await workspace.count(cassette: "staging") == 1)
    }

    @Test func deleteOfAnUnknownCassetteIsAnErrorAndDeletesNothing() async throws {
        try await recordSample()
        let result = try await workspace.run("delete", "--cassette", "prod", "--all")
        #expect(result.status == 1)
        #expect(result.stderr == "error: cassettes.db has no cassette named 'prod' (cassettes: dev, staging); nothing deleted\n")
        #expect(try await workspace.count() == 4)
    }

    @Test func deleteOfAKeyWithNoRecordingNamesItAndDeletesNothing() async throws {
        try await recordSample()
        let result = try await workspace.run("delete", "GET /api/user?limit=10")
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: no recording of \"GET /api/user?limit=10\" in cassettes.db; nearest stored keys: \"GET /api/users?limit=10\""))
        #expect(result.stderr.hasSuffix("; nothing deleted\n"))
        #expect(try await workspace.count() == 4)
    }

    @Test func deleteNeverCreatesAMissingStore() async throws {
        let result = try await workspace.run("delete", "GET /api/a")
        #expect(result.status == 1)
        #expect(result.stderr.contains("cassettes.db does not exist"))
        #expect(!workspace.fileExists("cassettes.db"))
    }

    @Test func deleteNeedsAKeyOrAll() async throws {
        let neither = try await workspace.run("delete")
        #expect(neither.status == 2)
        #expect(neither.stderr.contains("name what to delete"))
        let both = try await workspace.run("delete", "GET /a", "--cassette", "dev", "--all")
        #expect(both.status == 2)
        #expect(both.stderr.contains("either a KEY or --all"))
    }
}

// MARK: prune

extension CLIManageTests {
    func recordAged() async throws {
        let now = Date()
        try await workspace.record([
            Recordings.make(.get, "/api/old", recordedAt: now.addingTimeInterval(-40 * 86_400)),
            Recordings.make(.get, "/api/older", cassette: "staging", recordedAt: now.addingTimeInterval(-90 * 86_400)),
            Recordings.make(.get, "/api/recent", recordedAt: now.addingTimeInterval(-2 * 86_400)),
            Recordings.make(.get, "/api/today", recordedAt: now.addingTimeInterval(-3_600)),
        ])
    }

    @Test func pruneDryRunCountsAndListsWithoutDeleting() async throws {
        try await recordAged()
        let result = try await workspace.run("prune", "--older-than", "30", "--dry-run")
        #expect(result.status == 0, "\(result)")
        let lines = result.stdoutLines
        #expect(lines.first?.hasPrefix("Would delete 2 recordings older than 30 days (recorded before ") == true)
        #expect(lines.first?.hasSuffix(") from cassettes.db.") == true)
        #expect(lines.count == 3)
        #expect(lines.contains { $0.contains("dev  GET /api/old  [0]") })
        #expect(lines.contains { $0.contains("staging  GET /api/older  [0]") })
        #expect(try await workspace.count() == 4)
    }

    @Test func pruneDeletesOnlyRecordingsOlderThanTheCutoff() async throws {
        try await recordAged()
        let result = try await workspace.run("prune", "--older-than", "30")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Deleted 2 recordings older than 30 days"))
        let keys = try Self.jsonArray(try await workspace.run("list", "--json").stdout).compactMap { $0["key"] as? String }
        #expect(keys == ["GET /api/recent", "GET /api/today"])
    }

    @Test func pruneAcceptsFractionsOfDaysAndACassette() async throws {
        try await recordAged()
        let result = try await workspace.run("prune", "--older-than", "0.5", "--cassette", "dev")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Deleted 2 recordings older than 0.5 days"))
        #expect(result.stdout.hasSuffix("from cassette dev in cassettes.db.\n"))
        #expect(try await workspace.count(cassette: "dev") == 1)
        #expect(try await workspace.count(cassette: "staging") == 1)
    }

    @Test(arguments: [["--older-than", "0"], ["--older-than=-3"], ["--older-than", "abc"], ["--older-than", "inf"], []])
    func pruneRejectsAgesThatAreNotPositiveNumbers(_ arguments: [String]) async throws {
        try await recordAged()
        let result = try await workspace.run(arguments: ["prune"] + arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("--older-than"))
        #expect(try await workspace.count() == 4)
    }

    @Test func pruneOfAnUnknownCassetteIsAnError() async throws {
        try await recordAged()
        let result = try await workspace.run("prune", "--older-than", "1", "--cassette", "qa")
        #expect(result.status == 1)
        #expect(result.stderr == "error: cassettes.db has no cassette named 'qa' (cassettes: dev, staging); nothing pruned\n")
    }
}
