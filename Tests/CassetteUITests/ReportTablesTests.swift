import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteUI

struct ReportTablesTests {
    static func recording(_ number: Int, body: String) -> Interaction {
        Interaction(
            id: Int64(number), cassette: "dev", method: .get, url: "http://api.example.test/items/\(number)?a=b", key: "GET /items/\(number)?a=b",
            statusCode: 200, responseHeaders: [.contentType: "application/json", .contentLength: String(body.utf8.count)], responseBody: Data(body.utf8))
    }

    /// A catalog over an empty store (the tables use its body rules), closed after `body`.
    static func withCatalog(_ body: (UICatalog) throws -> Void) async throws {
        let workspace = try CLIWorkspace()
        let store = try await CassetteStore.open(path: workspace.storePath, access: .readWrite)
        do {
            try body(UICatalog(store: store))
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    @Test func identicalBodiesAndHeaderLinesAreWrittenOnceAndRowsPointAtThem() async throws {
        var tables = ReportTables()
        try await Self.withCatalog { catalog in
            for number in 0..<100 { tables.add(Self.recording(number, body: number % 2 == 0 ? #"{"even":true}"# : #"{"even":false}"#), catalog: catalog) }
        }
        let json = try #require(tables.json.objectValue)
        #expect(json["bodies"]?.arrayValue?.count == 2)
        // content-type once; content-length of either body: one line each.
        #expect(json["headerLines"]?.arrayValue?.count == 3)
        // no request headers, and the two response header sets.
        #expect(json["headerSets"]?.arrayValue?.count == 3)
        let rows = try #require(json["rows"]?.arrayValue)
        #expect(rows.count == 100)
        let columns = (json["columns"]?.arrayValue ?? []).compactMap { $0.stringValue }
        let first = try #require(rows.first?.arrayValue)
        // The key reads as the URL's method and target: left out, the page makes it again.
        #expect(first[columns.firstIndex(of: "key")!] == .null)
        #expect(first[columns.firstIndex(of: "url")!] == "http://api.example.test/items/0?a=b")
    }

    @Test func aKeyThatIsNotTheURLsTargetIsKept() async throws {
        var tables = ReportTables()
        var recording = Self.recording(1, body: "{}")
        recording.key = "GET /items/1"
        try await Self.withCatalog { tables.add(recording, catalog: $0) }
        let json = try #require(tables.json.objectValue)
        let columns = (json["columns"]?.arrayValue ?? []).compactMap { $0.stringValue }
        #expect(json["rows"]?.arrayValue?.first?.arrayValue?[columns.firstIndex(of: "key")!] == "GET /items/1")
    }

    @Test func theDerivedKeyIsTheMethodAndTheTargetAfterTheAuthority() {
        #expect(ReportTables.derivedKey(method: "GET", url: "https://h.test:8443/a/b?c=d") == "GET /a/b?c=d")
        #expect(ReportTables.derivedKey(method: "POST", url: "http://h.test") == "POST /")
        #expect(ReportTables.derivedKey(method: "GET", url: "/relative") == nil)
    }
}
