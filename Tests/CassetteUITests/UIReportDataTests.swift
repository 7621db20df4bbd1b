import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore

/// The data of the Sessions and Drift views as `cassette ui` and `cassette report` give it to the
/// page (from `cassette replay`: `UIViewsDataTests`, in-process).
struct UIReportDataTests {
    static func json(_ response: TransportResponse) throws -> JSONObject {
        try #require(try JSONValue(parsing: response.body).objectValue)
    }

    @Test func cassetteUIHasNoSessionsAndSaysSo() async throws {
        let workspace = try CLIWorkspace()
        try await workspace.record(Array(BrowserTests.recordings().prefix(3)))
        try await withChildProcess("cassette", arguments: ["ui", "--db", workspace.storePath, "--port", "0"]) { process in
            try await process.waitForOutput("the ui line") { $0.contains("ui on ") }
            let line = try #require(process.standardOutput.split(separator: "\n").first { $0.hasPrefix("ui on ") })
            // The printed URL redirects to the UI under /__cassette/ui/, where its data is.
            let url = try #require(URL(string: String(line.dropFirst("ui on ".count)) + "__cassette/ui/api/sessions"))
            let response = try await ProxyClient.send(.get, url)
            #expect(response.statusCode == 200)
            let listed = try Self.json(response)
            #expect(listed["live"] == false)
            #expect(listed["sessions"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test func theReportWithFixturesCarriesTheDriftPerEndpoint() async throws {
        let workspace = try CLIWorkspace()
        try await workspace.record(BrowserTests.recordings())
        try workspace.write(
            #"{"id": 1, "name": "item 1", "color": "red", "tags": [], "price": {"amount": 1, "currency": "EUR"}}"#, to: "fixtures/mock_items_id_get.json")
        let written = try await workspace.run("report", "--html", "report.html", "--fixtures", "fixtures")
        #expect(written.status == 0, "\(written)")
        let page = try String(contentsOfFile: workspace.path("report.html"), encoding: .utf8)
        #expect(page.contains(#""rule":"fieldNotInAPI""#))
        #expect(page.contains(#""fixtures":"fixtures""#))
    }

    @Test func aMissingFixturesFolderIsAOneLineErrorAndWritesNoReport() async throws {
        let workspace = try CLIWorkspace()
        try await workspace.record(Array(BrowserTests.recordings().prefix(3)))
        let result = try await workspace.run("report", "--html", "report.html", "--fixtures", "nowhere")
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("the fixtures directory nowhere does not exist"), "\(result.stderr)")
        #expect(!workspace.fileExists("report.html"))
        let run = try await workspace.run("run", "--fixtures", "fixtures", "--", "true")
        #expect(run.status != 0)
        #expect(run.stderr.contains("add --report OUT.html"), "\(run.stderr)")
    }
}
